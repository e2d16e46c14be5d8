package ghdouble

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"
)

// Options set a double up.
type Options struct {
	// TLS serves HTTPS with a certificate for 127.0.0.1 and localhost
	// signed by a test CA, whose PEM is at [Server.CAFile].
	TLS bool
	// Dir is where the CA's PEM is written; a new temporary directory
	// (removed by Close) when empty.
	Dir string
	// Limit is the primary rate limit: requests per Window per token, for
	// REST (core) and GraphQL each. 5000 when 0, as GitHub gives a token.
	Limit int
	// Window is the rate limit's window, an hour when 0.
	Window time.Duration
	// Now is the clock (time.Now when nil): a test moves it to see a
	// window reset.
	Now func() time.Time
}

// Server is a GitHub double. Its methods are safe for concurrent use.
type Server struct {
	opts   Options
	mu     sync.Mutex
	seq    int64
	repos  map[string]*repo
	tokens map[string]Token
	users  map[string]int64
	limits map[string]*bucket // login + "/" + resource
	faults []*Fault
	log    []Request
	bad    []string // violations of GitHub's description
	etags  map[string]bool
	// GitHub Apps, their installations, and the expiry of the
	// installation tokens minted (which are in tokens too).
	apps     map[int64]*App
	installs map[int64]*installation
	expiry   map[string]time.Time
	minted   int

	caFile, tmp string
	tlsConf     *tls.Config
	hs          *http.Server
	ln          net.Listener
	url         string
}

// New makes a double with no state; [Server.Listen] serves it.
func New(opts Options) (*Server, error) {
	if opts.Limit == 0 {
		opts.Limit = 5000
	}
	if opts.Window == 0 {
		opts.Window = time.Hour
	}
	s := &Server{opts: opts, repos: map[string]*repo{}, tokens: map[string]Token{},
		users: map[string]int64{}, limits: map[string]*bucket{}, etags: map[string]bool{},
		apps: map[int64]*App{}, installs: map[int64]*installation{}, expiry: map[string]time.Time{}}
	if opts.TLS {
		dir := opts.Dir
		if dir == "" {
			tmp, err := os.MkdirTemp("", "ghdouble-")
			if err != nil {
				return nil, fmt.Errorf("make a directory for the double's CA: %w", err)
			}
			s.tmp, dir = tmp, tmp
		}
		conf, caFile, err := newTLS(dir)
		if err != nil {
			s.removeTmp()
			return nil, err
		}
		s.tlsConf, s.caFile = conf, caFile
	}
	return s, nil
}

// Start starts a double on 127.0.0.1 for a test: it is closed at the test's
// end, and the test fails if an answer broke GitHub's description.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		s.Check(t)
	})
	return s
}

// Listen serves the double on addr (host:port; port 0 picks one) until
// Close.
func (s *Server) Listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (choose another address)", addr, err)
	}
	scheme := "http"
	if s.tlsConf != nil {
		ln = tls.NewListener(ln, s.tlsConf)
		scheme = "https"
	}
	s.ln, s.url = ln, scheme+"://"+ln.Addr().String()
	s.hs = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.hs.Serve(ln) }()
	return nil
}

// URL is the double's origin (https://127.0.0.1:PORT): github.com's REST
// paths are under it, GitHub Enterprise's under URL/api/v3.
func (s *Server) URL() string { return s.url }

// Host is the double's host:port, for GH_HOST.
func (s *Server) Host() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// CAFile is the PEM of the CA that signed the double's certificate, for
// SSL_CERT_FILE; empty without TLS.
func (s *Server) CAFile() string { return s.caFile }

// Client is an HTTP client that trusts the double's CA.
func (s *Server) Client() *http.Client {
	if s.tlsConf == nil {
		return &http.Client{}
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.tlsConf.RootCAs}}}
}

// Close stops serving (a hanging answer ends with it) and removes the
// temporary directory New made.
func (s *Server) Close() {
	if s.hs != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := s.hs.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.hs.Close()
		}
	}
	s.removeTmp()
}

func (s *Server) removeTmp() {
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}

// Violations are the answers that broke GitHub's description so far.
func (s *Server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bad...)
}

// Check fails t for each answer that broke GitHub's description.
func (s *Server) Check(t testing.TB) {
	t.Helper()
	for _, v := range s.Violations() {
		t.Errorf("the GitHub double answered what GitHub's API description (REST: OpenAPI; GraphQL: its schema) does not allow: %s", v)
	}
}

func (s *Server) now() time.Time {
	if s.opts.Now != nil {
		return s.opts.Now()
	}
	return time.Now()
}

func (s *Server) userID(login string) int64 {
	id, ok := s.users[login]
	if !ok {
		id = int64(1000 + len(s.users))
		s.users[login] = id
	}
	return id
}
