package github

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
)

// token is the token the tests' clients send: it must never show in an
// error or a log.
const token = "ghp_testTOKEN0123456789secret"

// fake is a GitHub Enterprise Server on 127.0.0.1 over HTTPS, serving the
// routes a test gives (patterns of net/http.ServeMux under /api/v3/), and
// a client of it on a fake clock.
type fake struct {
	t   *testing.T
	srv *httptest.Server
	c   *Client
	// repo is o/r on the fake's host.
	repo forge.Repo

	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
	seen  []string // "METHOD /path?query" of each request
	log   syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newFake(t *testing.T, routes map[string]http.HandlerFunc) *fake {
	t.Helper()
	f := &fake{t: t, now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	mux := http.NewServeMux()
	for pattern, h := range routes {
		method, path, _ := strings.Cut(pattern, " ")
		prefix := "/api/v3/"
		if path == "/graphql" {
			prefix = "/api/"
		}
		mux.HandleFunc(method+" "+prefix+strings.TrimPrefix(path, "/"), h)
	}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.seen = append(f.seen, r.Method+" "+r.URL.RequestURI())
		f.mu.Unlock()
		if got := r.Header.Get("Authorization"); got != "token "+token {
			t.Errorf("%s %s: Authorization %q, want the token", r.Method, r.URL.Path, got)
		}
		if r.Header.Get("Accept") != "application/vnd.github+json" || r.Header.Get("X-GitHub-Api-Version") != "2022-11-28" {
			t.Errorf("%s %s: Accept %q, X-GitHub-Api-Version %q", r.Method, r.URL.Path, r.Header.Get("Accept"), r.Header.Get("X-GitHub-Api-Version"))
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	host := f.srv.Listener.Addr().String()
	f.repo = forge.Repo{Host: host, Owner: "o", Name: "r"}
	c, err := New(Options{
		Host: host, Token: token, Transport: f.srv.Client().Transport,
		Now: func() time.Time {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.now
		},
		Sleep: func(ctx context.Context, d time.Duration) error {
			f.mu.Lock()
			f.slept = append(f.slept, d)
			f.now = f.now.Add(d)
			f.mu.Unlock()
			return ctx.Err()
		},
		Log: slog.New(slog.NewTextHandler(&f.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	f.c = c
	t.Cleanup(func() {
		if strings.Contains(f.log.String(), token) {
			t.Errorf("the log holds the token:\n%s", f.log.String())
		}
	})
	return f
}

func (f *fake) ref(n int) forge.IssueRef { return forge.IssueRef{Repo: f.repo, Number: n} }

// url is the fake's URL of path under /api/v3/.
func (f *fake) url(path string) string { return f.srv.URL + "/api/v3/" + strings.TrimPrefix(path, "/") }

func (f *fake) sleeps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.slept...)
}

func (f *fake) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

// reply answers status with headers (name, value pairs) and body.
func reply(status int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

// sequence answers with each handler in turn, the last one ever after.
func sequence(hs ...http.HandlerFunc) http.HandlerFunc {
	var mu sync.Mutex
	i := 0
	return func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		h := hs[min(i, len(hs)-1)]
		i++
		mu.Unlock()
		h(w, r)
	}
}

// noToken fails t when err's text holds the token.
func noToken(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), token) {
		t.Errorf("the error holds the token: %v", err)
	}
}

func newTextLog(w *syncBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
