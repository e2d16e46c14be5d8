package ghdouble

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// client asks a double as a test's client would.
type client struct {
	t     *testing.T
	s     *Server
	hc    *http.Client
	base  string
	token string
}

func newClient(t *testing.T, s *Server, token string) *client {
	hc := s.Client()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &client{t: t, s: s, hc: hc, base: s.URL(), token: token}
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) json(t *testing.T) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("answer %d is not JSON: %v: %s", r.status, err, r.body)
	}
	return v
}

func (c *client) do(method, path, body string, hdr ...string) reply {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "token "+c.token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

func seeded(t *testing.T, opts Options) (*Server, *client) {
	s := Start(t, opts)
	s.AddToken("tok", Token{Login: "alice", Scopes: []string{"repo", "read:org"}})
	s.AddRepo("acme/tool", Repo{})
	s.SetPermission("acme/tool", "alice", "write")
	return s, newClient(t, s, "tok")
}

func TestAuth(t *testing.T) {
	s, c := seeded(t, Options{})
	r := c.do("GET", "/user", "")
	if r.status != 200 || r.header.Get("X-OAuth-Scopes") != "repo, read:org" {
		t.Fatalf("GET /user = %d, scopes %q", r.status, r.header.Get("X-OAuth-Scopes"))
	}
	if login := r.json(t).(map[string]any)["login"]; login != "alice" {
		t.Errorf("login = %v", login)
	}
	bad := newClient(t, s, "nope").do("GET", "/repos/acme/tool", "")
	if bad.status != 401 || !strings.Contains(string(bad.body), `"message":"Bad credentials"`) || bad.header.Get("X-RateLimit-Limit") != "60" {
		t.Errorf("bad token: %d %s %v", bad.status, bad.body, bad.header)
	}
	none := newClient(t, s, "").do("GET", "/user", "")
	if none.status != 401 || !strings.Contains(string(none.body), "Requires authentication") {
		t.Errorf("no token: %d %s", none.status, none.body)
	}
	s.AddToken("ro", Token{Login: "bob", Scopes: []string{"read:org"}})
	n := s.AddIssue("acme/tool", Issue{Title: "t", Author: "bob"})
	w := newClient(t, s, "ro").do("POST", "/repos/acme/tool/issues/1/labels", `{"labels":["x"]}`)
	if w.status != 403 {
		t.Errorf("a write without the repo scope = %d %s, want 403", w.status, w.body)
	}
	s.AddToken("app", Token{Login: "bot[bot]"})
	w = newClient(t, s, "app").do("POST", "/repos/acme/tool/issues/1/labels", `{"labels":["x"]}`)
	if w.status != 403 || !strings.Contains(string(w.body), "Resource not accessible by integration") || w.header.Get("X-OAuth-Scopes") != "" {
		t.Errorf("labels without triage = %d %s", w.status, w.body)
	}
	if u := newClient(t, s, "app").do("GET", "/user", ""); u.status != 403 {
		t.Errorf("GET /user with an App's installation token = %d, want 403 as GitHub answers", u.status)
	}
	if h := c.do("GET", "/repos/acme/tool", "").header.Get("X-Accepted-OAuth-Scopes"); h != "repo" {
		t.Errorf("X-Accepted-OAuth-Scopes = %q", h)
	}
	if is, _ := s.Issue("acme/tool", n); len(is.Labels) != 0 {
		t.Errorf("refused labels were added: %v", is.Labels)
	}
}

func TestRateLimitCountsDownAndResets(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s, c := seeded(t, Options{Limit: 3, Window: time.Hour, Now: clock})
	for i, want := range []string{"2", "1", "0"} {
		r := c.do("GET", "/repos/acme/tool", "")
		if r.status != 200 || r.header.Get("X-RateLimit-Remaining") != want || r.header.Get("X-RateLimit-Resource") != "core" {
			t.Fatalf("request %d: %d remaining %q", i, r.status, r.header.Get("X-RateLimit-Remaining"))
		}
	}
	if r := c.do("GET", "/rate_limit", ""); r.status != 200 || r.header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("GET /rate_limit when spent = %d, remaining %s (it costs nothing and still answers)", r.status, r.header.Get("X-RateLimit-Remaining"))
	}
	r := c.do("GET", "/repos/acme/tool", "")
	if r.status != 403 || !strings.Contains(string(r.body), "API rate limit exceeded") || r.header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("spent: %d %s", r.status, r.body)
	}
	if r.header.Get("X-RateLimit-Reset") != "1800003600" {
		t.Errorf("reset = %s", r.header.Get("X-RateLimit-Reset"))
	}
	mu.Lock()
	now = now.Add(time.Hour)
	mu.Unlock()
	if r := c.do("GET", "/repos/acme/tool", ""); r.status != 200 || r.header.Get("X-RateLimit-Remaining") != "2" {
		t.Errorf("after the reset: %d remaining %s", r.status, r.header.Get("X-RateLimit-Remaining"))
	}
	s.SpendRateLimit("alice", "core", 2)
	if r := c.do("GET", "/repos/acme/tool", ""); r.status != 403 {
		t.Errorf("after another program spent the rest: %d", r.status)
	}
	if g := c.do("POST", "/graphql", `{"query":"{ viewer { login } }"}`); g.status != 200 || g.header.Get("X-RateLimit-Resource") != "graphql" || g.header.Get("X-RateLimit-Remaining") != "2" {
		t.Errorf("GraphQL has a limit of its own: %d %v", g.status, g.header)
	}
	log := s.Requests()
	if last := log[len(log)-1]; last.Endpoint != "POST /graphql" || last.Login != "alice" || last.Status != 200 {
		t.Errorf("the last request logged: %+v", last)
	}
}

func TestETagAndPaging(t *testing.T) {
	s, c := seeded(t, Options{})
	for i := 0; i < 5; i++ {
		s.AddIssue("acme/tool", Issue{Title: "i", Author: "bob", Labels: []string{"agentloop"}})
	}
	s.AddIssue("acme/tool", Issue{Title: "other", Author: "bob"})
	r := c.do("GET", "/repos/acme/tool/issues?state=open&labels=agentloop&per_page=2", "")
	if r.status != 200 || len(r.json(t).([]any)) != 2 {
		t.Fatalf("first page: %d %s", r.status, r.body)
	}
	link := r.header.Get("Link")
	if !strings.Contains(link, `page=2&per_page=2&state=open>; rel="next"`) || !strings.Contains(link, `page=3&per_page=2&state=open>; rel="last"`) {
		t.Errorf("Link = %q", link)
	}
	last := c.do("GET", "/repos/acme/tool/issues?state=open&labels=agentloop&per_page=2&page=3", "")
	if n := len(last.json(t).([]any)); n != 1 || strings.Contains(last.header.Get("Link"), `rel="next"`) {
		t.Errorf("last page: %d issues, Link %q", n, last.header.Get("Link"))
	}
	etag := r.header.Get("ETag")
	before := r.header.Get("X-RateLimit-Remaining")
	again := c.do("GET", "/repos/acme/tool/issues?state=open&labels=agentloop&per_page=2", "", "If-None-Match", etag)
	if again.status != 304 || len(again.body) != 0 {
		t.Fatalf("unchanged with If-None-Match = %d %q", again.status, again.body)
	}
	if got := c.do("GET", "/rate_limit", "").json(t).(map[string]any)["rate"].(map[string]any)["used"]; got != float64(2) {
		t.Errorf("used after two 200s and a 304 = %v, want 2 (a 304 is free); remaining was %s", got, before)
	}
	s.AddIssue("acme/tool", Issue{Title: "new", Author: "bob", Labels: []string{"agentloop"}})
	if changed := c.do("GET", "/repos/acme/tool/issues?state=open&labels=agentloop&per_page=2", "", "If-None-Match", etag); changed.status != 200 {
		t.Errorf("changed with If-None-Match = %d, want 200", changed.status)
	}
	if n := len(s.Issues("acme/tool")); n != 7 {
		t.Errorf("Issues read back %d, want 7", n)
	}
	if s.NotModified() != 1 || s.Count("GET /repos/{owner}/{repo}/issues") != 4 {
		t.Errorf("NotModified %d, issues listed %d", s.NotModified(), s.Count("GET /repos/{owner}/{repo}/issues"))
	}
}

func TestAPIVersion(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.AddToken("tok", Token{Login: "alice"})
	c := newClient(t, s, "tok")
	if r := c.do("GET", "/user", "", "X-GitHub-Api-Version", "2022-11-28"); r.status != 200 || r.header.Get("X-GitHub-Api-Version-Selected") != "2022-11-28" {
		t.Errorf("the version served: %d %v", r.status, r.header)
	}
	if r := c.do("GET", "/user", "", "X-GitHub-Api-Version", "2026-03-10"); r.status != 400 || len(s.Violations()) != 1 {
		t.Errorf("another version: %d, violations %q", r.status, s.Violations())
	}
}

func TestFaults(t *testing.T) {
	s, c := seeded(t, Options{})
	s.FailNext("GET", "/repos/{owner}/{repo}", 2, 500)
	for i := 0; i < 2; i++ {
		if r := c.do("GET", "/repos/acme/tool", ""); r.status != 500 {
			t.Errorf("fault %d: %d", i, r.status)
		}
	}
	if r := c.do("GET", "/repos/acme/tool", ""); r.status != 200 {
		t.Errorf("after the faults: %d", r.status)
	}
	s.SecondaryLimit("POST", "/repos/acme/tool/issues/1/comments", 1, 429, 30*time.Second)
	s.AddIssue("acme/tool", Issue{Title: "t", Author: "bob"})
	r := c.do("POST", "/repos/acme/tool/issues/1/comments", `{"body":"hi"}`)
	if r.status != 429 || r.header.Get("Retry-After") != "30" || !strings.Contains(string(r.body), "secondary rate limit") {
		t.Errorf("secondary limit: %d %v %s", r.status, r.header, r.body)
	}
	s.Inject(Fault{Path: "/user", Drop: true})
	req, _ := http.NewRequest("GET", s.URL()+"/user", nil)
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if _, err := fresh.Do(req); err == nil {
		t.Error("a dropped connection answered")
	}
	s.Inject(Fault{Path: "/user", Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ = http.NewRequestWithContext(ctx, "GET", s.URL()+"/user", nil)
	if _, err := c.hc.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a hang ended with %v, want the request's deadline", err)
	}
}
