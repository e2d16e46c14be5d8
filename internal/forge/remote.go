package forge

import (
	"fmt"
	"net/url"
	"strings"
)

// RepoOfRemote is the repository a git remote's URL names on its forge:
// https://host/owner/name(.git), ssh://[user@]host[:port]/owner/name(.git),
// or git's scp-like user@host:owner/name(.git). The host of an https URL
// keeps its port (a GitHub Enterprise on its own port); an ssh port is
// ssh's, not the forge's, and is dropped.
func RepoOfRemote(remote string) (Repo, error) {
	s := strings.TrimSpace(remote)
	bad := func(why string) (Repo, error) {
		return Repo{}, fmt.Errorf("remote URL %q: %s; name the issue as owner/repo#N", remote, why)
	}
	var host, path string
	switch {
	case strings.Contains(s, "://"):
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return bad("not a URL")
		}
		switch u.Scheme {
		case "https", "http":
			host = u.Host
		case "ssh", "git", "git+ssh", "ssh+git":
			host = u.Hostname()
		default:
			return bad("not a forge's URL (https or ssh)")
		}
		path = u.Path
	case strings.Contains(s, ":") && !strings.HasPrefix(s, "/"):
		// scp-like: [user@]host:owner/name
		h, p, _ := strings.Cut(s, ":")
		if _, after, ok := strings.Cut(h, "@"); ok {
			h = after
		}
		host, path = h, p
	default:
		return bad("a local path, not a forge's repository")
	}
	parts := strings.Split(strings.Trim(strings.TrimSuffix(strings.TrimSuffix(path, "/"), ".git"), "/"), "/")
	if len(parts) != 2 {
		return bad("its path is not owner/name")
	}
	r := Repo{Host: strings.ToLower(host), Owner: parts[0], Name: parts[1]}
	if _, err := checkRef(IssueRef{Repo: r, Number: 1}, remote); err != nil {
		return bad("not a valid host, owner or repository name")
	}
	return r, nil
}
