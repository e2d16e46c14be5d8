package github

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/agentloop/agentloop/internal/forge"
)

// trusted says whether login may write to repo (the GitHub App the client
// acts as may: its bot is no collaborator). author_association is
// only a first filter: an author who is neither the owner, a member of the
// owning organization nor a collaborator cannot write, and is not asked
// about; the others are asked about (a collaborator may only read).
func (c *Client) trusted(ctx context.Context, repo forge.Repo, login, association string) (bool, error) {
	if login == "" {
		return false, nil
	}
	if bot := c.bot(); bot != "" && strings.EqualFold(login, bot) {
		return true, nil // the App agentloop acts as: its own comments
	}
	switch association {
	case "OWNER", "MEMBER", "COLLABORATOR", "":
	default:
		return false, nil
	}
	p, err := c.Permission(ctx, repo, login)
	return p.CanWrite(), err
}

// Permission is login's permission on repo, asked once per client: a
// person who is no collaborator (404) has none.
func (c *Client) Permission(ctx context.Context, repo forge.Repo, login string) (forge.Permission, error) {
	rp, err := c.repoPath(repo)
	if err != nil {
		return forge.PermissionNone, err
	}
	key := permKey{repo: strings.ToLower(repo.Owner + "/" + repo.Name), login: strings.ToLower(login)}
	c.mu.Lock()
	p, ok := c.perms[key]
	c.mu.Unlock()
	if ok {
		return p, nil
	}
	var j struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	err = c.getJSON(ctx, rp+"/collaborators/"+url.PathEscape(login)+"/permission", &j)
	switch {
	case errors.Is(err, forge.ErrNotFound):
		p = forge.PermissionNone
	case err != nil:
		return forge.PermissionNone, fmt.Errorf("read the permission of %s on %s: %w", login, repo, err)
	default:
		p = permission(j.RoleName, j.Permission)
	}
	c.mu.Lock()
	c.perms[key] = p
	c.mu.Unlock()
	return p, nil
}

// permission is GitHub's role_name when it is one of the roles the forge
// names (maintain and triage show there only), else its base permission.
func permission(role, base string) forge.Permission {
	for _, p := range []forge.Permission{forge.PermissionAdmin, forge.PermissionMaintain, forge.PermissionWrite, forge.PermissionTriage, forge.PermissionRead} {
		if string(p) == role {
			return p
		}
	}
	switch p := forge.Permission(base); p {
	case forge.PermissionAdmin, forge.PermissionWrite, forge.PermissionRead:
		return p
	}
	return forge.PermissionNone
}
