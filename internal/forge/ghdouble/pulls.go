package ghdouble

import (
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

const pullDoc = "https://docs.github.com/rest/pulls/pulls#create-a-pull-request"

func (s *Server) listPulls(c *call) answer {
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	head := q.Get("head")
	if o, b, ok := strings.Cut(head, ":"); ok {
		if !strings.EqualFold(o, c.repo.owner) {
			return page(c, nil)
		}
		head = b
	}
	ns := c.repo.numbers()
	slices.Reverse(ns)
	var out []any
	for _, n := range ns {
		it := c.repo.items[n]
		if it.pr == nil || (state != "all" && it.issue.State != state) {
			continue
		}
		if (head != "" && it.pr.Head != head) || (q.Get("base") != "" && it.pr.Base != q.Get("base")) {
			continue
		}
		out = append(out, s.prJSON(c, c.repo, it, false))
	}
	return page(c, out)
}

func (s *Server) createPull(c *call) answer {
	var in struct {
		Title, Head, Base, Body string
		Draft                   bool
	}
	if a, ok := decode(c, &in); !ok {
		return a
	}
	for _, f := range []struct{ name, v string }{{"base", in.Base}, {"head", in.Head}, {"title", in.Title}} {
		if f.v == "" {
			return invalid(pullDoc, obj{"resource": "PullRequest", "code": "missing_field", "field": f.name})
		}
	}
	head := in.Head
	if o, b, ok := strings.Cut(head, ":"); ok {
		if !strings.EqualFold(o, c.repo.owner) {
			return invalid(pullDoc, obj{"resource": "PullRequest", "field": "head", "code": "invalid"})
		}
		head = b
	}
	headSHA, ok := s.branchSHA(c.repo, head)
	if !ok {
		return invalid(pullDoc, obj{"resource": "PullRequest", "field": "head", "code": "invalid"})
	}
	baseSHA, ok := s.branchSHA(c.repo, in.Base)
	if !ok {
		return invalid(pullDoc, obj{"resource": "PullRequest", "field": "base", "code": "invalid"})
	}
	for _, it := range c.repo.items {
		if it.pr != nil && it.issue.State == "open" && it.pr.Head == head && it.pr.Base == in.Base {
			return invalid(pullDoc, obj{"resource": "PullRequest", "code": "custom",
				"message": fmt.Sprintf("A pull request already exists for %s:%s.", c.repo.owner, head)})
		}
	}
	if !ahead(c.repo, in.Base, head, baseSHA, headSHA) {
		return invalid(pullDoc, obj{"resource": "PullRequest", "code": "custom",
			"message": fmt.Sprintf("No commits between %s and %s", in.Base, head)})
	}
	it := s.addPRLocked(c.repo, PR{Title: in.Title, Body: in.Body, Author: c.tok.Login, Head: head, Base: in.Base, HeadSHA: headSHA, Draft: in.Draft})
	j := s.prJSON(c, c.repo, it, true)
	return answer{status: 201, body: j, header: map[string][]string{"Location": {j["url"].(string)}}}
}

// branchSHA is branch's commit: from the remote when the repository has
// one; else from SetBranch, where any branch is taken while none was set.
func (s *Server) branchSHA(r *repo, branch string) (string, bool) {
	if r.setup.Remote != "" {
		out, err := exec.Command("git", "-C", r.setup.Remote, "rev-parse", "--verify", "-q", "refs/heads/"+branch).Output()
		if err != nil {
			return "", false
		}
		return strings.TrimSpace(string(out)), true
	}
	if sha, ok := r.branches[branch]; ok {
		return sha, true
	}
	if len(r.branches) > 0 {
		return "", false
	}
	return fakeSHA(r.owner, r.name, branch), true
}

// ahead reports whether head has commits base lacks.
func ahead(r *repo, base, head, baseSHA, headSHA string) bool {
	if r.setup.Remote == "" {
		return baseSHA != headSHA
	}
	out, err := exec.Command("git", "-C", r.setup.Remote, "rev-list", "--count", baseSHA+".."+headSHA).Output()
	if err != nil {
		return false
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n > 0
}

func (s *Server) getPull(c *call) answer {
	it, ok := c.number("pull_number")
	if !ok || it.pr == nil {
		return notFound()
	}
	j := s.prJSON(c, c.repo, it, true)
	it.unknown = false
	return answer{status: 200, body: j}
}

func (s *Server) updatePull(c *call) answer {
	it, ok := c.number("pull_number")
	if !ok || it.pr == nil {
		return notFound()
	}
	if it.issue.Author != c.tok.Login && !c.repo.atLeast(c.tok.Login, "write") {
		return forbidden()
	}
	var in struct {
		Title, Body, State, Base *string
	}
	if a, ok := decode(c, &in); !ok {
		return a
	}
	if in.Title != nil {
		it.issue.Title = *in.Title
	}
	if in.Body != nil {
		it.issue.Body = *in.Body
	}
	if in.State != nil {
		if *in.State != "open" && *in.State != "closed" {
			return invalid("https://docs.github.com/rest/pulls/pulls#update-a-pull-request",
				obj{"resource": "PullRequest", "field": "state", "code": "invalid"})
		}
		it.issue.State = *in.State
	}
	if in.Base != nil && *in.Base != it.pr.Base {
		it.pr.Base, it.unknown = *in.Base, true
	}
	it.issue.UpdatedAt = s.now()
	it.pr.UpdatedAt = it.issue.UpdatedAt
	return answer{status: 200, body: s.prJSON(c, c.repo, it, true)}
}

func (s *Server) listReviews(c *call) answer {
	it, ok := c.number("pull_number")
	if !ok || it.pr == nil {
		return notFound()
	}
	var out []any
	for _, rv := range it.pr.Reviews {
		u := fmt.Sprintf("%s/pulls/%d", c.repoURL(c.repo), it.issue.Number)
		h := fmt.Sprintf("%s/pull/%d#pullrequestreview-%d", c.repoWeb(c.repo), it.issue.Number, rv.ID)
		out = append(out, obj{
			"id": rv.ID, "node_id": nodeID("PullRequestReview", rv.ID), "user": s.userJSON(c, rv.Author),
			"body": rv.Body, "state": rv.State, "html_url": h, "pull_request_url": u,
			"_links":       obj{"html": obj{"href": h}, "pull_request": obj{"href": u}},
			"submitted_at": ts(rv.SubmittedAt), "commit_id": it.pr.HeadSHA,
			"author_association": c.repo.association(rv.Author),
		})
	}
	return page(c, out)
}

func (s *Server) listCheckRuns(c *call) answer {
	sha := c.repo.resolve(c.params["ref"])
	runs := c.repo.checks[sha]
	latest := map[string]int{}
	for i, cr := range runs {
		latest[cr.Name] = i
	}
	all := []any{}
	for i, cr := range runs {
		if c.r.URL.Query().Get("filter") != "all" && latest[cr.Name] != i {
			continue
		}
		all = append(all, s.checkRunJSON(c, sha, cr))
	}
	paged := page(c, all)
	paged.body = obj{"total_count": len(all), "check_runs": paged.body}
	return paged
}

func (s *Server) checkRunJSON(c *call, sha string, cr *CheckRun) obj {
	u := fmt.Sprintf("%s/check-runs/%d", c.repoURL(c.repo), cr.ID)
	done := cr.Status == "completed"
	var concl any
	if done {
		concl = cr.Conclusion
	}
	started := c.repo.created
	prs := []any{}
	for _, n := range c.repo.numbers() {
		if it := c.repo.items[n]; it.pr != nil && it.pr.HeadSHA == sha {
			ref := func(branch, sha string) obj {
				return obj{"ref": branch, "sha": sha, "repo": obj{"id": c.repo.id, "url": c.repoURL(c.repo), "name": c.repo.name}}
			}
			baseSHA, _ := s.branchSHA(c.repo, it.pr.Base)
			prs = append(prs, obj{"id": c.repo.id*10000 + int64(n), "number": n,
				"url": fmt.Sprintf("%s/pulls/%d", c.repoURL(c.repo), n), "head": ref(it.pr.Head, sha), "base": ref(it.pr.Base, baseSHA)})
		}
	}
	return obj{
		"id": cr.ID, "head_sha": sha, "node_id": nodeID("CheckRun", cr.ID), "external_id": "",
		"url": u, "html_url": fmt.Sprintf("%s/runs/%d", c.repoWeb(c.repo), cr.ID),
		"details_url": fmt.Sprintf("%s/actions/runs/%d/job/%d", c.repoWeb(c.repo), cr.ID/10, cr.ID),
		"status":      cr.Status, "conclusion": concl, "started_at": ts(started), "completed_at": tsOrNil(started, done),
		"output": obj{"title": nil, "summary": nil, "text": nil, "annotations_count": 0, "annotations_url": u + "/annotations"},
		"name":   cr.Name, "check_suite": obj{"id": cr.ID / 10}, "app": nil, "pull_requests": prs,
	}
}

const logPath = "/_ghdouble/logs/"

func (s *Server) jobLogs(c *call) answer {
	id, err := strconv.ParseInt(c.params["job_id"], 10, 64)
	if err != nil {
		return notFound()
	}
	for _, runs := range c.repo.checks {
		for _, cr := range runs {
			if cr.ID == id {
				loc := fmt.Sprintf("%s%s%d?sig=%s", c.origin(), logPath, id, fakeSHA("log", fmt.Sprint(id))[:16])
				return answer{status: 302, header: map[string][]string{"Location": {loc}}}
			}
		}
	}
	return notFound()
}
