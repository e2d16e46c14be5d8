package ghdouble

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// The JSON shapes below follow GitHub's answers as the description's
// examples show them (testdata/README.md names which).

type obj = map[string]any

func (c *call) origin() string {
	scheme := "http"
	if c.r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + c.r.Host
}

// api is the REST API's base URL, web the site's.
func (c *call) api() string { return c.origin() + c.prefix }
func (c *call) web() string { return c.origin() }

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func tsOrNil(t time.Time, ok bool) any {
	if !ok {
		return nil
	}
	return ts(t)
}

func nodeID(kind string, id int64) string {
	return base64.RawStdEncoding.EncodeToString([]byte(fmt.Sprintf("%02d:%s%d", len(kind), kind, id)))
}

func (s *Server) userJSON(c *call, login string) obj {
	id := s.userID(login)
	u := c.api() + "/users/" + login
	kind := "User"
	if strings.HasSuffix(login, "[bot]") {
		kind = "Bot" // a GitHub App's installation
	}
	return obj{
		"login": login, "id": id, "node_id": nodeID("User", id),
		"avatar_url": c.web() + "/avatars/u/" + fmt.Sprint(id), "gravatar_id": "",
		"url": u, "html_url": c.web() + "/" + login,
		"followers_url": u + "/followers", "following_url": u + "/following{/other_user}",
		"gists_url": u + "/gists{/gist_id}", "starred_url": u + "/starred{/owner}{/repo}",
		"subscriptions_url": u + "/subscriptions", "organizations_url": u + "/orgs",
		"repos_url": u + "/repos", "events_url": u + "/events{/privacy}",
		"received_events_url": u + "/received_events", "type": kind,
		"user_view_type": "public", "site_admin": false,
	}
}

func (c *call) repoURL(r *repo) string { return c.api() + "/repos/" + r.owner + "/" + r.name }
func (c *call) repoWeb(r *repo) string { return c.web() + "/" + r.owner + "/" + r.name }

func (s *Server) labelJSON(c *call, r *repo, name string) obj {
	id := r.labelID(s, name)
	return obj{
		"id": id, "node_id": nodeID("Label", id), "url": c.repoURL(r) + "/labels/" + url.PathEscape(name),
		"name": name, "description": nil, "color": "ededed", "default": false,
	}
}

// association is GitHub's author_association of login on r.
func (r *repo) association(login string) string {
	switch {
	case strings.EqualFold(login, r.owner):
		return "OWNER"
	case strings.HasSuffix(login, "[bot]"):
		return "NONE" // a GitHub App's bot writes by its installation, as no collaborator
	case r.perm(login) != "":
		return "COLLABORATOR"
	}
	return "NONE"
}

func reactions(u string) obj {
	return obj{"url": u + "/reactions", "total_count": 0, "+1": 0, "-1": 0, "laugh": 0,
		"hooray": 0, "confused": 0, "heart": 0, "rocket": 0, "eyes": 0}
}

func (s *Server) issueJSON(c *call, r *repo, it *item) obj {
	is := &it.issue
	id := int64(r.id)*10000 + int64(is.Number)
	u := fmt.Sprintf("%s/issues/%d", c.repoURL(r), is.Number)
	labels := []any{}
	for _, l := range is.Labels {
		labels = append(labels, s.labelJSON(c, r, l))
	}
	closed := is.State == "closed"
	var reason any
	if closed {
		reason = "completed"
	}
	j := obj{
		"id": id, "node_id": nodeID("Issue", id), "url": u,
		"repository_url": c.repoURL(r), "labels_url": u + "/labels{/name}",
		"comments_url": u + "/comments", "events_url": u + "/events",
		"html_url": fmt.Sprintf("%s/issues/%d", c.repoWeb(r), is.Number),
		"number":   is.Number, "state": is.State, "state_reason": reason, "title": is.Title, "body": nilIfEmpty(is.Body),
		"user": s.userJSON(c, is.Author), "labels": labels, "assignee": nil, "assignees": []any{},
		"milestone": nil, "locked": false, "active_lock_reason": nil, "comments": len(is.Comments),
		"closed_at": tsOrNil(is.UpdatedAt, closed), "created_at": ts(is.CreatedAt), "updated_at": ts(is.UpdatedAt),
		"author_association": r.association(is.Author), "reactions": reactions(u),
		"timeline_url": u + "/timeline", "performed_via_github_app": nil,
		"issue_dependencies_summary": r.dependencies(is.Number),
	}
	if it.pr != nil {
		var merged any
		if it.pr.Merged {
			merged = ts(it.issue.UpdatedAt)
		}
		pu := fmt.Sprintf("%s/pulls/%d", c.repoURL(r), is.Number)
		pw := fmt.Sprintf("%s/pull/%d", c.repoWeb(r), is.Number)
		j["html_url"] = pw
		j["pull_request"] = obj{"url": pu, "html_url": pw, "diff_url": pw + ".diff", "patch_url": pw + ".patch", "merged_at": merged}
		j["draft"] = it.pr.Draft
	}
	return j
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (s *Server) commentJSON(c *call, r *repo, n int, cm Comment) obj {
	u := fmt.Sprintf("%s/issues/comments/%d", c.repoURL(r), cm.ID)
	return obj{
		"id": cm.ID, "node_id": nodeID("IssueComment", cm.ID), "url": u,
		"html_url":   fmt.Sprintf("%s/issues/%d#issuecomment-%d", c.repoWeb(r), n, cm.ID),
		"body":       cm.Body,
		"user":       s.userJSON(c, cm.Author),
		"created_at": ts(cm.CreatedAt), "updated_at": ts(cm.UpdatedAt),
		"issue_url":                fmt.Sprintf("%s/issues/%d", c.repoURL(r), n),
		"author_association":       r.association(cm.Author),
		"performed_via_github_app": nil,
		"reactions":                reactions(u),
	}
}

// repoJSON is a repository as GET /repos/{owner}/{repo} shows it (full is
// false for the repository inside a pull request's head and base).
func (s *Server) repoJSON(c *call, r *repo, full bool) obj {
	u, w := c.repoURL(r), c.repoWeb(r)
	open := 0
	for _, it := range r.items {
		if it.issue.State == "open" {
			open++
		}
	}
	vis := "public"
	if r.setup.Private {
		vis = "private"
	}
	host := strings.TrimPrefix(strings.TrimPrefix(c.web(), "https://"), "http://")
	j := obj{
		"id": r.id, "node_id": nodeID("Repository", r.id), "name": r.name, "full_name": r.owner + "/" + r.name,
		"owner": s.userJSON(c, r.owner), "private": r.setup.Private, "html_url": w, "description": nil,
		"fork": false, "url": u, "archive_url": u + "/{archive_format}{/ref}", "assignees_url": u + "/assignees{/user}",
		"blobs_url": u + "/git/blobs{/sha}", "branches_url": u + "/branches{/branch}",
		"collaborators_url": u + "/collaborators{/collaborator}", "comments_url": u + "/comments{/number}",
		"commits_url": u + "/commits{/sha}", "compare_url": u + "/compare/{base}...{head}",
		"contents_url": u + "/contents/{+path}", "contributors_url": u + "/contributors",
		"deployments_url": u + "/deployments", "downloads_url": u + "/downloads", "events_url": u + "/events",
		"forks_url": u + "/forks", "git_commits_url": u + "/git/commits{/sha}", "git_refs_url": u + "/git/refs{/sha}",
		"git_tags_url": u + "/git/tags{/sha}", "git_url": "git://" + host + "/" + r.owner + "/" + r.name + ".git",
		"issue_comment_url": u + "/issues/comments{/number}", "issue_events_url": u + "/issues/events{/number}",
		"issues_url": u + "/issues{/number}", "keys_url": u + "/keys{/key_id}", "labels_url": u + "/labels{/name}",
		"languages_url": u + "/languages", "merges_url": u + "/merges", "milestones_url": u + "/milestones{/number}",
		"notifications_url": u + "/notifications{?since,all,participating}", "pulls_url": u + "/pulls{/number}",
		"releases_url": u + "/releases{/id}", "ssh_url": "git@" + host + ":" + r.owner + "/" + r.name + ".git",
		"stargazers_url": u + "/stargazers", "statuses_url": u + "/statuses/{sha}", "subscribers_url": u + "/subscribers",
		"subscription_url": u + "/subscription", "tags_url": u + "/tags", "teams_url": u + "/teams",
		"trees_url": u + "/git/trees{/sha}", "clone_url": w + ".git", "mirror_url": nil, "hooks_url": u + "/hooks",
		"svn_url": w, "homepage": nil, "language": "Go", "forks_count": 0, "stargazers_count": 0,
		"watchers_count": 0, "size": 1, "default_branch": r.setup.DefaultBranch, "open_issues_count": open,
		"is_template": false, "topics": []any{}, "has_issues": true, "has_projects": true, "has_wiki": true,
		"has_pages": false, "has_downloads": true, "has_discussions": false, "archived": false, "disabled": false,
		"visibility": vis, "pushed_at": ts(r.created), "created_at": ts(r.created), "updated_at": ts(r.created),
		"allow_forking": true, "web_commit_signoff_required": false, "forks": 0, "open_issues": open, "watchers": 0,
		"license": nil,
	}
	if full {
		j["network_count"] = 0
		j["subscribers_count"] = 0
	}
	return j
}

// dependencies is GitHub's issue_dependencies_summary of issue n: the open
// issues it waits on and the open ones waiting on it, and both in all.
func (r *repo) dependencies(n int) obj {
	open := func(m int) bool { return r.items[m] != nil && r.items[m].issue.State == "open" }
	sum := obj{"blocked_by": 0, "total_blocked_by": 0, "blocking": 0, "total_blocking": 0}
	for _, b := range r.items[n].issue.BlockedBy {
		sum["total_blocked_by"] = sum["total_blocked_by"].(int) + 1
		if open(b) {
			sum["blocked_by"] = sum["blocked_by"].(int) + 1
		}
	}
	for m, it := range r.items {
		if slices.Contains(it.issue.BlockedBy, n) {
			sum["total_blocking"] = sum["total_blocking"].(int) + 1
			if open(m) {
				sum["blocking"] = sum["blocking"].(int) + 1
			}
		}
	}
	return sum
}
