package ghdouble

import (
	"net/http"
	"net/url"
	"strings"
)

// routes are the operations the double serves, by method and GitHub's path
// template (the names of the description's path parameters).
var routes = []struct {
	method, tmpl string
	h            func(*Server, *call) answer
}{
	{"GET", "/user", (*Server).getUser},
	{"GET", "/rate_limit", (*Server).getRateLimit},
	{"GET", "/repos/{owner}/{repo}", (*Server).getRepo},
	{"GET", "/repos/{owner}/{repo}/issues", (*Server).listIssues},
	{"GET", "/repos/{owner}/{repo}/issues/{issue_number}", (*Server).getIssue},
	{"GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", (*Server).listComments},
	{"POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", (*Server).createComment},
	{"PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}", (*Server).updateComment},
	{"POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels", (*Server).addLabels},
	{"DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", (*Server).removeLabel},
	{"GET", "/repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by", (*Server).blockedBy},
	{"GET", "/repos/{owner}/{repo}/collaborators/{username}/permission", (*Server).getPermission},
	{"GET", "/repos/{owner}/{repo}/pulls", (*Server).listPulls},
	{"POST", "/repos/{owner}/{repo}/pulls", (*Server).createPull},
	{"GET", "/repos/{owner}/{repo}/pulls/{pull_number}", (*Server).getPull},
	{"PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}", (*Server).updatePull},
	{"GET", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", (*Server).listReviews},
	{"GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", (*Server).listCheckRuns},
	{"GET", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs", (*Server).jobLogs},
	{"POST", "/graphql", (*Server).graphql},
	// A GitHub App's (a JWT authenticates them: apps.go answers them).
	{"POST", "/app/installations/{installation_id}/access_tokens", nil},
	{"GET", "/repos/{owner}/{repo}/installation", nil},
}

// route finds the template path matches; params is nil when the path
// matches one but not with this method (GitHub answers 404 to both).
func route(method, path string) (tmpl string, params map[string]string) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for _, rt := range routes {
		ts := strings.Split(strings.Trim(rt.tmpl, "/"), "/")
		if len(ts) != len(segs) {
			continue
		}
		p := map[string]string{}
		ok := true
		for i, t := range ts {
			if strings.HasPrefix(t, "{") {
				if segs[i] == "" {
					ok = false
					break
				}
				p[strings.Trim(t, "{}")] = unescape(segs[i])
			} else if t != segs[i] {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if rt.method == method {
			return rt.tmpl, p
		}
		tmpl = rt.tmpl
	}
	return tmpl, nil
}

func unescape(seg string) string {
	if u, err := url.PathUnescape(seg); err == nil {
		return u
	}
	return seg
}

func (s *Server) handleLocked(c *call) answer {
	for _, rt := range routes {
		if c.endpoint != rt.method+" "+rt.tmpl {
			continue
		}
		if owner, ok := c.params["owner"]; ok {
			r := s.repos[repoKey(owner, c.params["repo"])]
			if r == nil || (r.setup.Private && r.perm(c.tok.Login) == "") {
				return notFound()
			}
			if r.setup.Private && c.tok.Scopes != nil && !hasScope(c.tok.Scopes, "repo") {
				return notFound()
			}
			if c.r.Method != http.MethodGet && c.tok.Scopes != nil &&
				!hasScope(c.tok.Scopes, "repo") && !(hasScope(c.tok.Scopes, "public_repo") && !r.setup.Private) {
				return answer{status: 403, body: errorBody("Resource not accessible by personal access token", "https://docs.github.com/rest", 403)}
			}
			c.repo = r
		}
		return rt.h(s, c)
	}
	return notFound()
}

func hasScope(scopes []string, want string) bool {
	for _, s := range scopes {
		if s == want {
			return true
		}
	}
	return false
}

// perm is login's permission on r: "" for none.
func (r *repo) perm(login string) string { return r.perms[login] }

// atLeast reports whether login's permission on r is at least want.
func (r *repo) atLeast(login, want string) bool {
	rank := map[string]int{"read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}
	return rank[r.perm(login)] >= rank[want]
}
