package ghdouble

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// prJSON is a pull request as GitHub shows it: the whole of it (full) from
// GET, POST and PATCH of one pull request, the simple one in a list.
func (s *Server) prJSON(c *call, r *repo, it *item, full bool) obj {
	pr, is := it.pr, &it.issue
	if r.setup.Remote != "" && is.State == "open" { // a push moves an open pull request's head, as on GitHub
		if sha, ok := s.branchSHA(r, pr.Head); ok {
			pr.HeadSHA = sha
		}
	}
	n := is.Number
	id := r.id*10000 + int64(n)
	u := fmt.Sprintf("%s/pulls/%d", c.repoURL(r), n)
	w := fmt.Sprintf("%s/pull/%d", c.repoWeb(r), n)
	iu := fmt.Sprintf("%s/issues/%d", c.repoURL(r), n)
	labels := []any{}
	for _, l := range is.Labels {
		labels = append(labels, s.labelJSON(c, r, l))
	}
	closed := is.State == "closed"
	var mergedAt, mergeSHA any
	if pr.Merged {
		mergedAt, mergeSHA = ts(is.UpdatedAt), fakeSHA("merge", pr.HeadSHA)
	}
	baseSHA, _ := s.branchSHA(r, pr.Base)
	if baseSHA == "" {
		baseSHA = fakeSHA(r.owner, r.name, pr.Base)
	}
	side := func(branch, sha string) obj {
		return obj{"label": r.owner + ":" + branch, "ref": branch, "sha": sha,
			"user": s.userJSON(c, r.owner), "repo": s.repoJSON(c, r, false)}
	}
	href := func(h string) obj { return obj{"href": h} }
	j := obj{
		"url": u, "id": id, "node_id": nodeID("PullRequest", id), "html_url": w,
		"diff_url": w + ".diff", "patch_url": w + ".patch", "issue_url": iu,
		"commits_url": u + "/commits", "review_comments_url": u + "/comments",
		"review_comment_url": c.repoURL(r) + "/pulls/comments{/number}", "comments_url": iu + "/comments",
		"statuses_url": c.repoURL(r) + "/statuses/" + pr.HeadSHA,
		"number":       n, "state": is.State, "locked": false, "title": is.Title, "user": s.userJSON(c, is.Author),
		"body": nilIfEmpty(is.Body), "labels": labels, "milestone": nil, "active_lock_reason": nil,
		"created_at": ts(is.CreatedAt), "updated_at": ts(is.UpdatedAt), "closed_at": tsOrNil(is.UpdatedAt, closed),
		"merged_at": mergedAt, "merge_commit_sha": mergeSHA, "assignee": nil, "assignees": []any{},
		"requested_reviewers": []any{}, "requested_teams": []any{},
		"head": side(pr.Head, pr.HeadSHA), "base": side(pr.Base, baseSHA),
		"_links": obj{"self": href(u), "html": href(w), "issue": href(iu), "comments": href(iu + "/comments"),
			"review_comments": href(u + "/comments"), "review_comment": href(c.repoURL(r) + "/pulls/comments{/number}"),
			"commits": href(u + "/commits"), "statuses": href(c.repoURL(r) + "/statuses/" + pr.HeadSHA)},
		"author_association": r.association(is.Author), "auto_merge": nil, "draft": pr.Draft,
	}
	if !full {
		return j
	}
	var mergeable any
	state := "unknown"
	if !it.unknown && !closed {
		mergeable, state = !pr.Conflict, "clean"
		if pr.Conflict {
			state = "dirty"
		}
	}
	var mergedBy any
	if pr.Merged {
		mergedBy = s.userJSON(c, r.owner)
	}
	review := 0
	for _, th := range pr.Threads {
		review += len(th.Comments)
	}
	for k, v := range (obj{"merged": pr.Merged, "mergeable": mergeable, "rebaseable": mergeable,
		"mergeable_state": state, "merged_by": mergedBy, "comments": len(is.Comments),
		"review_comments": review, "maintainer_can_modify": false, "commits": 1,
		"additions": 1, "deletions": 0, "changed_files": 1}) {
		j[k] = v
	}
	return j
}

// serveLog answers a job log's URL (a signed blob URL on GitHub: no token).
func (s *Server) serveLog(w http.ResponseWriter, idText string) {
	id, err := strconv.ParseInt(strings.TrimSuffix(idText, "/"), 10, 64)
	s.mu.Lock()
	var log *string
	for _, r := range s.repos {
		for _, runs := range r.checks {
			for _, cr := range runs {
				if err == nil && cr.ID == id {
					log = &cr.Log
				}
			}
		}
	}
	s.mu.Unlock()
	if log == nil {
		http.Error(w, "BlobNotFound", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte(*log))
}
