package testenv

import (
	"encoding/base64"
	"encoding/pem"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// GitHTTPS is a git server over HTTPS for a test: git's own smart HTTP
// (git http-backend, run as CGI) serving the bare repositories under Root
// at URL/NAME, to a client whose Authorization is HTTP Basic with a token
// [GitHTTPS.Allow] lets in (401 without one, 403 with another), as GitHub
// takes its tokens. Each request also looks through every process's
// command line on the machine (Linux's /proc) for the token it was sent: a
// token that ps can show is recorded ([GitHTTPS.Exposed]).
type GitHTTPS struct {
	// URL is the server's origin (https://127.0.0.1:PORT); CAFile the PEM
	// of its certificate, for git's http.sslCAInfo.
	URL, CAFile, Root string

	mu      sync.Mutex
	tokens  map[string]bool
	exposed []string
	asked   int
}

// StartGitHTTPS starts a [GitHTTPS] for t, closed at its end. It needs git
// and its http-backend.
func StartGitHTTPS(t *testing.T) *GitHTTPS {
	t.Helper()
	NeedTool(t, "git")
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skipf("no git http-backend: %v", err)
	}
	g := &GitHTTPS{Root: t.TempDir(), tokens: map[string]bool{}}
	h := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + g.Root, "GIT_HTTP_EXPORT_ALL=1", "REMOTE_USER=x-access-token"}}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := g.token(r)
		switch {
		case !ok:
			w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		case !g.allowed(tok):
			http.Error(w, "Permission to the repository denied.", http.StatusForbidden)
			return
		}
		g.look(tok)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	g.CAFile = filepath.Join(t.TempDir(), "ca.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(g.CAFile, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	return g
}

// Allow lets token in (and no longer when allow is false).
func (g *GitHTTPS) Allow(token string, allow bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tokens[token] = allow
}

// Exposed are the command lines, seen while a request was served, that
// held the token it was sent (in the clear or as its Basic encoding).
func (g *GitHTTPS) Exposed() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.exposed...)
}

// Served is how many requests with a token allowed were served.
func (g *GitHTTPS) Served() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.asked
}

func (g *GitHTTPS) allowed(tok string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tokens[tok]
}

// token is the password of r's Basic Authorization.
func (g *GitHTTPS) token(r *http.Request) (string, bool) {
	_, pass, ok := r.BasicAuth()
	return pass, ok && pass != ""
}

// look records the command lines of this machine's processes that hold tok.
func (g *GitHTTPS) look(tok string) {
	var hits []string
	if runtime.GOOS == "linux" {
		basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + tok))
		lines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, f := range lines {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			if s := string(b); strings.Contains(s, tok) || strings.Contains(s, basic) {
				hits = append(hits, f+": "+strings.ReplaceAll(s, "\x00", " "))
			}
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asked++
	g.exposed = append(g.exposed, hits...)
}

// Bare makes the bare repository Root/name (such as "acme/tool.git"),
// taking pushes, and is its path.
func (g *GitHTTPS) Bare(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(g.Root, filepath.FromSlash(name))
	for _, args := range [][]string{{"init", "-q", "--bare", "-b", "main", dir}, {"-C", dir, "config", "http.receivepack", "true"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return dir
}
