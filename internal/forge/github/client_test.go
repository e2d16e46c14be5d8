package github

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/cli/go-gh/v2/pkg/api"
	"github.com/cli/go-gh/v2/pkg/config"
)

// ghEnv empties the environment gh reads, so a test sees only what it sets
// (no stored login, no gh to ask).
func ghEnv(t *testing.T) string {
	dir := t.TempDir()
	for _, k := range []string{"GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "GH_HOST"} {
		t.Setenv(k, "")
	}
	t.Setenv("GH_CONFIG_DIR", dir)
	t.Setenv("GH_PATH", filepath.Join(dir, "no-gh"))
	return dir
}

type captured struct{ urls []string }

func (c *captured) RoundTrip(r *http.Request) (*http.Response, error) {
	c.urls = append(c.urls, r.URL.String())
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"data":{}}`)), Request: r}, nil
}

// TestEndpoints: the REST and GraphQL URLs of a host are the ones go-gh's
// own clients send to (GitHub Enterprise Server under /api/v3/ and
// /api/graphql, a port kept).
func TestEndpoints(t *testing.T) {
	ghEnv(t)
	tests := []struct{ host, rest, graphql string }{
		{"github.com", "https://api.github.com/", "https://api.github.com/graphql"},
		{"ghe.example.com", "https://ghe.example.com/api/v3/", "https://ghe.example.com/api/graphql"},
		{"127.0.0.1:8443", "https://127.0.0.1:8443/api/v3/", "https://127.0.0.1:8443/api/graphql"},
		{"acme.ghe.com", "https://api.acme.ghe.com/", "https://api.acme.ghe.com/graphql"},
	}
	for _, tt := range tests {
		rest, graphql := endpoints(tt.host)
		if rest != tt.rest || graphql != tt.graphql {
			t.Errorf("endpoints(%q) = %q, %q; want %q, %q", tt.host, rest, graphql, tt.rest, tt.graphql)
		}
		var got captured
		opts := api.ClientOptions{Host: tt.host, AuthToken: "x", Transport: &got}
		rc, err := api.NewRESTClient(opts)
		if err != nil {
			t.Fatal(err)
		}
		_ = rc.Get("repos/o/r", nil)
		gc, err := api.NewGraphQLClient(opts)
		if err != nil {
			t.Fatal(err)
		}
		_ = gc.Do("query{viewer{login}}", nil, &struct{}{})
		if want := []string{rest + "repos/o/r", graphql}; len(got.urls) != 2 || got.urls[0] != want[0] || got.urls[1] != want[1] {
			t.Errorf("go-gh sends %q for %s; we would send %q", got.urls, tt.host, want)
		}
	}
}

// TestCredentialsAsGh: GH_HOST chooses the host and GH_ENTERPRISE_TOKEN is
// its token (GH_TOKEN is github.com's); the request goes to /api/v3/ with
// it. No token is ErrAuth naming the variable to set.
func TestCredentialsAsGh(t *testing.T) {
	dir := ghEnv(t)
	f := newFake(t, map[string]http.HandlerFunc{"GET /repos/o/r/issues/1": reply(200, issue1)})
	host := f.srv.Listener.Addr().String()
	t.Setenv("GH_HOST", host)
	t.Setenv("GH_TOKEN", "the-github.com-token")
	t.Setenv("GH_ENTERPRISE_TOKEN", token)
	c, err := New(Options{Transport: f.srv.Client().Transport})
	if err != nil {
		t.Fatal(err)
	}
	if c.Host() != host {
		t.Errorf("Host() = %q, want GH_HOST %q", c.Host(), host)
	}
	if _, err := c.Issue(t.Context(), f.ref(1)); err != nil { // the fake checks the token
		t.Fatal(err)
	}
	if got := f.requests(); len(got) == 0 || !strings.HasPrefix(got[0], "GET /api/v3/repos/o/r/issues/1") {
		t.Errorf("requests %q, want the Enterprise path", got)
	}

	t.Setenv("GH_ENTERPRISE_TOKEN", "")
	_, err = New(Options{})
	if !errors.Is(err, forge.ErrAuth) || !strings.Contains(err.Error(), "set GH_ENTERPRISE_TOKEN or run gh auth login --hostname 127.0.0.1") {
		t.Errorf("New() without a token = %v", err)
	}

	t.Setenv("GH_HOST", "")
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "from-GITHUB_TOKEN")
	c, err = New(Options{})
	if err != nil || c.Host() != "github.com" || c.token != "from-GITHUB_TOKEN" || c.rest != "https://api.github.com/" {
		t.Errorf("New() with GITHUB_TOKEN = %+v, %v", c, err)
	}

	// gh's stored login, its one host the default.
	t.Setenv("GITHUB_TOKEN", "")
	hosts := "ghe.example.com:\n    oauth_token: stored-token\n    user: me\n"
	if err := os.WriteFile(filepath.Join(dir, "hosts.yml"), []byte(hosts), 0o600); err != nil {
		t.Fatal(err)
	}
	// go-gh reads gh's configuration once a process: read it again.
	if err := config.Reload(nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = os.Remove(filepath.Join(dir, "hosts.yml"))
		_ = config.Reload(nil)
	})
	c, err = New(Options{})
	if err != nil || c.Host() != "ghe.example.com" || c.token != "stored-token" {
		t.Errorf("New() with gh's stored login = %+v, %v", c, err)
	}
}

// TestUnixSocketAsGh: with no transport given, gh's http_unix_socket
// carries the requests, as it does gh's.
func TestUnixSocketAsGh(t *testing.T) {
	dir := ghEnv(t)
	sock := filepath.Join(dir, "gh.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no unix socket here: %v", err)
	}
	var mu sync.Mutex
	var got []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Host+" "+r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/blocked_by") {
			reply(404, `{"message":"Not Found"}`)(w, r)
			return
		}
		reply(200, issue1)(w, r)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	if err := os.WriteFile(filepath.Join(dir, "config.yml"), []byte("http_unix_socket: "+sock+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := config.Reload(nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = os.Remove(filepath.Join(dir, "config.yml"))
		_ = config.Reload(nil)
	})
	t.Setenv("GH_HOST", "ghe.example.com")
	t.Setenv("GH_ENTERPRISE_TOKEN", token)
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref := forge.IssueRef{Repo: forge.Repo{Host: "ghe.example.com", Owner: "o", Name: "r"}, Number: 1}
	if _, err := c.Issue(t.Context(), ref); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 || got[0] != "ghe.example.com GET /api/v3/repos/o/r/issues/1 token "+token {
		t.Errorf("through the socket: %q", got)
	}
}

// TestTokenHelp: where a token is looked for, as gh looks, by host: the
// variables of github.com, or of a GitHub Enterprise host (GH_HOST), never
// the other's.
func TestTokenHelp(t *testing.T) {
	for _, tt := range []struct{ host, want, not string }{
		{"github.com", "set GH_TOKEN (or GITHUB_TOKEN) to a token for github.com, or log in with 'gh auth login --hostname github.com'", "ENTERPRISE"},
		{"ghe.example.com", "set GH_ENTERPRISE_TOKEN (or GITHUB_ENTERPRISE_TOKEN) to a token for ghe.example.com", "GH_TOKEN"},
		{"127.0.0.1:8443", "GH_ENTERPRISE_TOKEN (or GITHUB_ENTERPRISE_TOKEN) to a token for 127.0.0.1:8443, or log in with 'gh auth login --hostname 127.0.0.1'", " GH_TOKEN"},
	} {
		got := TokenHelp(tt.host)
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("TokenHelp(%q) = %q, want %q and no %q", tt.host, got, tt.want, tt.not)
		}
	}
}
