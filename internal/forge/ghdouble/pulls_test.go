package ghdouble

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func field(t *testing.T, r reply, path ...string) any {
	t.Helper()
	v := r.json(t)
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: no %q in %s", path, p, r.body)
		}
		v = m[p]
	}
	return v
}

// TestEnterpriseOverTLS asks the double GitHub Enterprise's way (/api/v3,
// /api/graphql) over HTTPS, trusting only the CA file it wrote.
func TestEnterpriseOverTLS(t *testing.T) {
	s, c := seeded(t, Options{TLS: true})
	if !strings.HasPrefix(s.URL(), "https://127.0.0.1:") {
		t.Fatalf("URL = %s", s.URL())
	}
	pem, err := os.ReadFile(s.CAFile())
	if err != nil || !strings.Contains(string(pem), "BEGIN CERTIFICATE") {
		t.Fatalf("CA file %s: %v", s.CAFile(), err)
	}
	n := s.AddIssue("acme/tool", Issue{Title: "Fix it", Body: "please", Author: "bob", Labels: []string{"agentloop"}})
	r := c.do("GET", "/api/v3/repos/acme/tool/issues/1", "")
	if r.status != 200 || field(t, r, "title") != "Fix it" || field(t, r, "number") != float64(n) {
		t.Fatalf("GET issue: %d %s", r.status, r.body)
	}
	if u := field(t, r, "url").(string); u != s.URL()+"/api/v3/repos/acme/tool/issues/1" {
		t.Errorf("url = %s", u)
	}
	g := c.do("POST", "/api/graphql", `{"query":"query { viewer { login } }"}`)
	if g.status != 200 || string(g.body) != `{"data":{"viewer":{"login":"alice"}}}` {
		t.Errorf("graphql viewer: %d %s", g.status, g.body)
	}
}

func TestCommentsAndLabels(t *testing.T) {
	s, c := seeded(t, Options{})
	n := s.AddIssue("acme/tool", Issue{Title: "t", Author: "bob", Labels: []string{"agentloop"}})
	s.AddComment("acme/tool", n, "bob", "first")
	r := c.do("POST", "/repos/acme/tool/issues/1/comments", `{"body":"progress 1"}`)
	if r.status != 201 || field(t, r, "user", "login") != "alice" || field(t, r, "author_association") != "COLLABORATOR" {
		t.Fatalf("create comment: %d %s", r.status, r.body)
	}
	id := int64(field(t, r, "id").(float64))
	if e := c.do("PATCH", "/repos/acme/tool/issues/comments/"+itoa(id), `{"body":"progress 2"}`); e.status != 200 || field(t, e, "body") != "progress 2" {
		t.Fatalf("edit comment: %d %s", e.status, e.body)
	}
	list := c.do("GET", "/repos/acme/tool/issues/1/comments", "")
	if cs := list.json(t).([]any); len(cs) != 2 || cs[0].(map[string]any)["body"] != "first" {
		t.Errorf("comments: %s", list.body)
	}
	if r := c.do("POST", "/repos/acme/tool/issues/1/labels", `{"labels":["agentloop:running"]}`); r.status != 200 || len(r.json(t).([]any)) != 2 {
		t.Errorf("add label: %d %s", r.status, r.body)
	}
	if r := c.do("POST", "/repos/acme/tool/issues/1/labels", `{"labels":[{"name":"agentloop:running"}]}`); r.status != 200 || len(r.json(t).([]any)) != 2 {
		t.Errorf("add a label named as an object (none new): %d %s", r.status, r.body)
	}
	if r := c.do("POST", "/repos/acme/tool/issues/1/labels", `{"labels":[7]}`); r.status != 422 {
		t.Errorf("add a label that is a number: %d %s", r.status, r.body)
	}
	if r := c.do("DELETE", "/repos/acme/tool/issues/1/labels/agentloop", ""); r.status != 200 {
		t.Errorf("remove label: %d %s", r.status, r.body)
	}
	if r := c.do("DELETE", "/repos/acme/tool/issues/1/labels/agentloop", ""); r.status != 404 || !strings.Contains(string(r.body), "Label does not exist") {
		t.Errorf("remove a label it lacks: %d %s", r.status, r.body)
	}
	is, _ := s.Issue("acme/tool", n)
	if strings.Join(is.Labels, ",") != "agentloop:running" || len(is.Comments) != 2 ||
		is.Comments[1].Body != "progress 2" || strings.Join(is.Comments[1].Edits, ",") != "progress 1" {
		t.Errorf("read back: %+v", is)
	}
	s.SetPermission("acme/tool", "carol", "triage")
	p := c.do("GET", "/repos/acme/tool/collaborators/carol/permission", "")
	if field(t, p, "permission") != "read" || field(t, p, "role_name") != "triage" {
		t.Errorf("carol's permission: %s", p.body)
	}
	if p := c.do("GET", "/repos/acme/tool/collaborators/mallory/permission", ""); field(t, p, "permission") != "read" {
		t.Errorf("a stranger's permission on a public repository: %s", p.body)
	}
	b := s.AddIssue("acme/tool", Issue{Title: "blocked", Author: "bob", BlockedBy: []int{n}})
	if r := c.do("GET", "/repos/acme/tool/issues/"+itoa(int64(b))+"/dependencies/blocked_by", ""); r.status != 200 || len(r.json(t).([]any)) != 1 {
		t.Errorf("blocked_by: %d %s", r.status, r.body)
	}
	if d := field(t, c.do("GET", "/repos/acme/tool/issues/"+itoa(int64(b)), ""), "issue_dependencies_summary").(map[string]any); d["blocked_by"] != float64(1) || d["total_blocked_by"] != float64(1) {
		t.Errorf("the blocked issue's summary: %v", d)
	}
	s.CloseIssue("acme/tool", n)
	if d := field(t, c.do("GET", "/repos/acme/tool/issues/"+itoa(int64(n)), ""), "issue_dependencies_summary").(map[string]any); d["blocking"] != float64(1) || d["total_blocking"] != float64(1) {
		t.Errorf("the blocking issue's summary: %v", d)
	}
	if d := field(t, c.do("GET", "/repos/acme/tool/issues/"+itoa(int64(b)), ""), "issue_dependencies_summary").(map[string]any); d["blocked_by"] != float64(0) || d["total_blocked_by"] != float64(1) {
		t.Errorf("blocked by a closed issue: %v", d)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestPullRequests(t *testing.T) {
	s, c := seeded(t, Options{})
	s.SetBranch("acme/tool", "main", "aaaa")
	s.SetBranch("acme/tool", "agentloop/issue-1", "bbbb")
	s.SetBranch("acme/tool", "empty", "aaaa")
	for _, tt := range []struct{ body, want string }{
		{`{"title":"x","head":"nope","base":"main"}`, `"code":"invalid","field":"head"`},
		{`{"title":"x","head":"empty","base":"main"}`, "No commits between main and empty"},
		{`{"head":"agentloop/issue-1","base":"main"}`, `"code":"missing_field","field":"title"`},
	} {
		if r := c.do("POST", "/repos/acme/tool/pulls", tt.body); r.status != 422 || !strings.Contains(string(r.body), tt.want) {
			t.Errorf("POST pulls %s = %d %s, want 422 with %s", tt.body, r.status, r.body, tt.want)
		}
	}
	r := c.do("POST", "/repos/acme/tool/pulls", `{"title":"Fix #1","head":"acme:agentloop/issue-1","base":"main","body":"Closes #1"}`)
	if r.status != 201 || field(t, r, "number") != float64(1) || field(t, r, "mergeable") != nil {
		t.Fatalf("open PR: %d %s", r.status, r.body)
	}
	if r := c.do("POST", "/repos/acme/tool/pulls", `{"title":"again","head":"agentloop/issue-1","base":"main"}`); r.status != 422 ||
		!strings.Contains(string(r.body), "A pull request already exists for acme:agentloop/issue-1.") {
		t.Errorf("second PR: %d %s", r.status, r.body)
	}
	if l := c.do("GET", "/repos/acme/tool/pulls?head=acme:agentloop/issue-1&state=open", ""); len(l.json(t).([]any)) != 1 {
		t.Errorf("list by head: %s", l.body)
	}
	if g := c.do("GET", "/repos/acme/tool/pulls/1", ""); field(t, g, "mergeable") != nil || field(t, g, "mergeable_state") != "unknown" {
		t.Errorf("first read: mergeable %v", field(t, g, "mergeable"))
	}
	if g := c.do("GET", "/repos/acme/tool/pulls/1", ""); field(t, g, "mergeable") != true || field(t, g, "mergeable_state") != "clean" {
		t.Errorf("second read: mergeable %v", field(t, g, "mergeable"))
	}
	s.SetConflict("acme/tool", 1, true)
	c.do("GET", "/repos/acme/tool/pulls/1", "")
	if g := c.do("GET", "/repos/acme/tool/pulls/1", ""); field(t, g, "mergeable") != false || field(t, g, "mergeable_state") != "dirty" {
		t.Errorf("conflict: mergeable %v", field(t, g, "mergeable"))
	}
	if u := c.do("PATCH", "/repos/acme/tool/pulls/1", `{"body":"receipt v2"}`); u.status != 200 || field(t, u, "body") != "receipt v2" {
		t.Errorf("update PR: %d %s", u.status, u.body)
	}
	job := s.AddCheckRun("acme/tool", "agentloop/issue-1", CheckRun{Name: "test", Conclusion: "failure", Log: "FAIL: TestX\n"})
	s.AddCheckRun("acme/tool", "bbbb", CheckRun{Name: "lint", Status: "in_progress"})
	cr := c.do("GET", "/repos/acme/tool/commits/bbbb/check-runs", "")
	if field(t, cr, "total_count") != float64(2) {
		t.Errorf("check runs: %s", cr.body)
	}
	lg := c.do("GET", "/repos/acme/tool/actions/jobs/"+itoa(job)+"/logs", "")
	if lg.status != 302 {
		t.Fatalf("logs: %d %s", lg.status, lg.body)
	}
	got := newClient(t, s, "").do("GET", strings.TrimPrefix(lg.header.Get("Location"), s.URL()), "")
	if string(got.body) != "FAIL: TestX\n" {
		t.Errorf("log = %q", got.body)
	}
	s.AddReview("acme/tool", 1, Review{Author: "carol", State: "CHANGES_REQUESTED", Body: "rename it"})
	if rv := c.do("GET", "/repos/acme/tool/pulls/1/reviews", ""); rv.json(t).([]any)[0].(map[string]any)["state"] != "CHANGES_REQUESTED" {
		t.Errorf("reviews: %s", rv.body)
	}
	s.MergePR("acme/tool", 1)
	if g := c.do("GET", "/repos/acme/tool/pulls/1", ""); field(t, g, "merged") != true || field(t, g, "state") != "closed" {
		t.Errorf("merged: %s", g.body)
	}
	if prs := s.PRs("acme/tool"); len(prs) != 1 || prs[0].Body != "receipt v2" || !prs[0].Merged {
		t.Errorf("read back: %+v", prs)
	}
}

func TestHeadCheckedAgainstRemote(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH")
	}
	dir := t.TempDir()
	remote, work := filepath.Join(dir, "remote.git"), filepath.Join(dir, "work")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	run("init", "-q", "--bare", "-b", "main", remote)
	run("init", "-q", "-b", "main", work)
	run("-C", work, "commit", "-q", "--allow-empty", "-m", "base")
	run("-C", work, "push", "-q", remote, "main")
	run("-C", work, "push", "-q", remote, "main:same")
	run("-C", work, "commit", "-q", "--allow-empty", "-m", "work")
	run("-C", work, "push", "-q", remote, "HEAD:feature")
	s, c := seeded(t, Options{})
	s.AddRepo("acme/tool", Repo{Remote: remote})
	for head, want := range map[string]int{"missing": 422, "same": 422, "feature": 201} {
		if r := c.do("POST", "/repos/acme/tool/pulls", `{"title":"x","base":"main","head":"`+head+`"}`); r.status != want {
			t.Errorf("head %s: %d %s, want %d", head, r.status, r.body, want)
		}
	}
	// A push to its branch moves an open pull request's head, as on GitHub.
	run("-C", work, "commit", "-q", "--allow-empty", "-m", "more")
	run("-C", work, "push", "-q", remote, "HEAD:feature")
	out, _ := exec.Command(git, "-C", remote, "rev-parse", "feature").Output()
	if r := c.do("GET", "/repos/acme/tool/pulls/1", ""); r.status != 200 || field(t, r, "head", "sha") != strings.TrimSpace(string(out)) {
		t.Errorf("after a push, the pull request's head: %d %v, want %s", r.status, field(t, r, "head", "sha"), out)
	}
}

func TestGraphQLReviewThreads(t *testing.T) {
	s, c := seeded(t, Options{})
	n := s.AddPR("acme/tool", PR{Title: "p", Author: "alice", Head: "b"})
	s.AddThread("acme/tool", n, Thread{Path: "a.go", Line: 3, Comments: []Comment{{Author: "carol", Body: "why?"}}})
	id := s.AddThread("acme/tool", n, Thread{Path: "b.go", Line: 9, Comments: []Comment{{Author: "carol", Body: "ok"}}})
	s.ResolveThread("acme/tool", n, id)
	q := `query($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { pullRequest(number: $number) {
		reviewThreads(first: 1) { nodes { isResolved path line comments(first: 10) { nodes { author { login } body } } } pageInfo { hasNextPage endCursor } } } } }`
	body, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]any{"owner": "acme", "name": "tool", "number": n}})
	r := c.do("POST", "/graphql", string(body))
	threads := field(t, r, "data", "repository", "pullRequest", "reviewThreads").(map[string]any)
	nodes := threads["nodes"].([]any)
	if len(nodes) != 1 || nodes[0].(map[string]any)["path"] != "a.go" || threads["pageInfo"].(map[string]any)["hasNextPage"] != true {
		t.Fatalf("first page: %s", r.body)
	}
	bad := c.do("POST", "/graphql", `{"query":"{ repository(owner: \"acme\", name: \"tool\") { pullRequest(number: 1) { bogus } } }"}`)
	if !strings.Contains(string(bad.body), `"message":"Field 'bogus' doesn't exist on type 'PullRequest'"`) || strings.Contains(string(bad.body), `"data"`) {
		t.Errorf("unknown field: %s", bad.body)
	}
	gone := c.do("POST", "/graphql", `{"query":"{ repository(owner: \"acme\", name: \"nope\") { id } }"}`)
	if !strings.Contains(string(gone.body), `"type":"NOT_FOUND"`) || !strings.Contains(string(gone.body), `"repository":null`) {
		t.Errorf("missing repository: %s", gone.body)
	}
	nob := c.do("POST", "/graphql", `{"query":"{ repository(owner: \"acme\", name: \"tool\") { pullRequest(number: 1) { reviewThreads { totalCount } } } }"}`)
	if !strings.Contains(string(nob.body), "MISSING_PAGINATION_BOUNDARIES") {
		t.Errorf("no first: %s", nob.body)
	}
}
