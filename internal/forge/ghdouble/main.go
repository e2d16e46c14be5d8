package ghdouble

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
)

// Main is the ghdouble command: it serves a double on --addr until
// interrupted, seeded from --seed, and first prints what a client needs, as
// shell assignments: GHDOUBLE_URL, GH_HOST and (with --tls) SSL_CERT_FILE.
// GET /_ghdouble/stats answers its request counts.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, os.Args[1:], os.Stdout, os.Stderr)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ghdouble", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on (port 0 picks one)")
	useTLS := fs.Bool("tls", false, "serve HTTPS with a test CA (what gh needs for GH_HOST)")
	seed := fs.String("seed", "", "a YAML or JSON file of tokens, repositories, issues and pull requests")
	limit := fs.Int("limit", 5000, "the primary rate limit: requests an hour per token")
	dir := fs.String("dir", "", "where to write the CA's PEM (a temporary directory when empty)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	s, err := New(Options{TLS: *useTLS, Limit: *limit, Dir: *dir})
	if err != nil {
		fmt.Fprintf(stderr, "ghdouble: %v\n", err)
		return 1
	}
	defer s.Close()
	if *seed != "" {
		sd, err := ReadSeed(*seed)
		if err != nil {
			fmt.Fprintf(stderr, "ghdouble: %v\n", err)
			return 2
		}
		s.Apply(sd)
	}
	if err := s.Listen(*addr); err != nil {
		fmt.Fprintf(stderr, "ghdouble: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "GHDOUBLE_URL=%s\nGH_HOST=%s\n", s.URL(), s.Host())
	if s.CAFile() != "" {
		fmt.Fprintf(stdout, "SSL_CERT_FILE=%s\n", s.CAFile())
	}
	<-ctx.Done()
	return 0
}

// serveStats answers the double's own counts (for a benchmark reading a
// double it started as a command): requests per endpoint, how many were
// answered 304, and the violations of GitHub's description so far.
func (s *Server) serveStats(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"requests": s.Counts(), "not_modified": s.NotModified(), "violations": s.Violations(),
	})
}
