package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
)

type user struct {
	Login string `json:"login"`
}

type issueJSON struct {
	Number            int                     `json:"number"`
	Title             string                  `json:"title"`
	Body              string                  `json:"body"`
	State             string                  `json:"state"`
	HTMLURL           string                  `json:"html_url"`
	User              user                    `json:"user"`
	AuthorAssociation string                  `json:"author_association"`
	Labels            []struct{ Name string } `json:"labels"`
	UpdatedAt         time.Time               `json:"updated_at"`
	RepositoryURL     string                  `json:"repository_url"`
	PullRequest       *json.RawMessage        `json:"pull_request"`
	// Dependencies is GitHub's count of the issues this one is blocked by,
	// open and in all (nil: a host without issue dependencies).
	Dependencies *struct {
		BlockedBy      int `json:"blocked_by"`
		TotalBlockedBy int `json:"total_blocked_by"`
	} `json:"issue_dependencies_summary"`
}

// issue is j as a [forge.Issue] of repo, with whether its author may write.
func (c *Client) issue(ctx context.Context, repo forge.Repo, j issueJSON) (forge.Issue, error) {
	trusted, err := c.trusted(ctx, repo, j.User.Login, j.AuthorAssociation)
	if err != nil {
		return forge.Issue{}, err
	}
	is := forge.Issue{
		Ref:   forge.IssueRef{Repo: repo, Number: j.Number},
		Title: j.Title, Body: j.Body, Author: j.User.Login, Trusted: trusted,
		Open: j.State == "open", URL: j.HTMLURL, UpdatedAt: j.UpdatedAt,
	}
	for _, l := range j.Labels {
		is.Labels = append(is.Labels, l.Name)
	}
	if j.Dependencies != nil {
		is.OpenBlockers = j.Dependencies.BlockedBy
	}
	return is, nil
}

// Issue reads an issue, with whether its author may write and the issues
// it is blocked by: those are a second request, made only when the issue
// says it is blocked by any (or says nothing of it: an older GitHub
// Enterprise Server).
func (c *Client) Issue(ctx context.Context, ref forge.IssueRef) (forge.Issue, error) {
	rp, err := c.repoPath(ref.Repo)
	if err != nil {
		return forge.Issue{}, err
	}
	var j issueJSON
	if err := c.getJSON(ctx, rp+"/issues/"+strconv.Itoa(ref.Number), &j); err != nil {
		return forge.Issue{}, fmt.Errorf("read issue %s: %w", ref, err)
	}
	is, err := c.issue(ctx, ref.Repo, j)
	if err != nil {
		return forge.Issue{}, fmt.Errorf("read issue %s: %w", ref, err)
	}
	if j.Dependencies != nil && j.Dependencies.TotalBlockedBy == 0 {
		return is, nil
	}
	if is.BlockedBy, err = c.blockedBy(ctx, ref, rp); err != nil {
		return forge.Issue{}, fmt.Errorf("read issue %s: %w", ref, err)
	}
	return is, nil
}

// blockedBy are the issues ref waits on. A host without issue
// dependencies (an older GitHub Enterprise Server) answers 404: none.
func (c *Client) blockedBy(ctx context.Context, ref forge.IssueRef, rp string) ([]forge.IssueRef, error) {
	var refs []forge.IssueRef
	err := c.pages(ctx, rp+"/issues/"+strconv.Itoa(ref.Number)+"/dependencies/blocked_by?per_page=100", func(resp *http.Response) error {
		var list []issueJSON
		if err := decode(resp, http.MethodGet, &list); err != nil {
			return err
		}
		for _, j := range list {
			r := repoOf(j.RepositoryURL, ref.Repo)
			refs = append(refs, forge.IssueRef{Repo: r, Number: j.Number})
		}
		return nil
	})
	if errors.Is(err, forge.ErrNotFound) {
		c.log.DebugContext(ctx, "github issue dependencies not available", "issue", ref.String())
		return nil, nil
	}
	return refs, err
}

// repoOf is the repository of an API URL ".../repos/OWNER/NAME" on def's
// host; def itself when the URL says none.
func repoOf(apiURL string, def forge.Repo) forge.Repo {
	u, err := url.Parse(apiURL)
	if err != nil {
		return def
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if i := slices.Index(parts, "repos"); i >= 0 && i+2 == len(parts)-1 {
		return forge.Repo{Host: def.Host, Owner: parts[i+1], Name: parts[i+2]}
	}
	return def
}

// page is one page of an issue list as last read, for a conditional
// request the next time.
type page struct {
	url, etag, next string
	issues          []forge.Issue
}

// Issues lists the open issues q selects, page by page, each with the ETag
// of its last answer: when every page answers 304 (not modified, which
// GitHub does not count against the rate limit), changed is false.
// Pull requests, which GitHub lists as issues too, are left out.
func (c *Client) Issues(ctx context.Context, q forge.Query) ([]forge.Issue, bool, error) {
	rp, err := c.repoPath(q.Repo)
	if err != nil {
		return nil, false, err
	}
	v := url.Values{"state": {"open"}, "per_page": {"100"}}
	labels := slices.Sorted(slices.Values(q.Labels))
	if len(labels) > 0 {
		v.Set("labels", strings.Join(labels, ","))
	}
	first := rp + "/issues?" + v.Encode()
	key := q.Repo.String() + "?" + v.Encode()
	c.mu.Lock()
	prev := c.polls[key]
	c.mu.Unlock()

	changed := false
	var pages []page
	for u := first; u != ""; {
		i := len(pages)
		if i > 100 {
			return nil, false, fmt.Errorf("list issues of %s: more than 10,000 open issues: choose them with a label", q.Repo)
		}
		r := get(u)
		if i < len(prev) && prev[i].url == u {
			r.etag = prev[i].etag
		}
		resp, err := c.do(ctx, r)
		if err != nil {
			return nil, false, fmt.Errorf("list issues of %s: %w", q.Repo, err)
		}
		if resp.StatusCode == http.StatusNotModified && r.etag != "" {
			resp.Body.Close()
			pages = append(pages, prev[i])
			u = prev[i].next
			continue
		}
		changed = true
		p := page{url: u, etag: resp.Header.Get("ETag")}
		p.next, err = c.next(resp)
		var list []issueJSON
		if err == nil {
			err = decode(resp, http.MethodGet, &list)
		}
		resp.Body.Close()
		if err != nil {
			return nil, false, fmt.Errorf("list issues of %s: %w", q.Repo, err)
		}
		for _, j := range list {
			if j.PullRequest != nil {
				continue
			}
			is, err := c.issue(ctx, q.Repo, j)
			if err != nil {
				return nil, false, fmt.Errorf("list issues of %s: %w", q.Repo, err)
			}
			p.issues = append(p.issues, is)
		}
		pages = append(pages, p)
		u = p.next
	}
	if len(pages) != len(prev) {
		changed = true
	}
	c.mu.Lock()
	c.polls[key] = pages
	c.mu.Unlock()
	if !changed {
		return nil, false, nil
	}
	var all []forge.Issue
	for _, p := range pages {
		all = append(all, p.issues...)
	}
	return all, true, nil
}

// Label adds add to ref and takes remove off it; a label already gone is
// fine.
func (c *Client) Label(ctx context.Context, ref forge.IssueRef, add, remove []string) error {
	rp, err := c.repoPath(ref.Repo)
	if err != nil {
		return err
	}
	base := rp + "/issues/" + strconv.Itoa(ref.Number) + "/labels"
	if len(add) > 0 {
		r := request{method: http.MethodPost, path: base, body: map[string][]string{"labels": add}, retry: true} // adding is idempotent
		if err := c.send(ctx, r, nil); err != nil {
			return fmt.Errorf("add label %s to %s: %w", strings.Join(add, ", "), ref, err)
		}
	}
	for _, l := range remove {
		r := request{method: http.MethodDelete, path: base + "/" + url.PathEscape(l), retry: true}
		if err := c.send(ctx, r, nil); err != nil && !errors.Is(err, forge.ErrNotFound) {
			return fmt.Errorf("take label %s off %s: %w", l, ref, err)
		}
	}
	return nil
}
