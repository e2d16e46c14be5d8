package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/forge/github"
)

// childEnv is set in the serve process the bench starts (the bench's own
// binary again): its value is the double's host, and the other variables
// below say the rest.
const (
	childEnv   = "SERVEBENCH_HOST"
	caEnv      = "SERVEBENCH_CA"
	everyEnv   = "SERVEBENCH_EVERY"
	maxWaitEnv = "SERVEBENCH_MAX_WAIT"
	token      = "bench-token"
	owner      = "o"
	name       = "r"
)

// event is one line the serve process writes on its stdout.
type event struct {
	Poll  int             `json:"poll,omitempty"` // a poll ended (serve sleeps)
	Took  int             `json:"took,omitempty"` // an issue's claim is done
	Mem   *mem            `json:"mem,omitempty"`  // asked for with "mem" on stdin
	Stats *app.ServeStats `json:"stats,omitempty"`
	Err   string          `json:"err,omitempty"`
}

// mem is the serve process's memory: the Go heap after a GC, and its RSS.
type mem struct {
	HeapBytes uint64 `json:"heap"`
	RSSBytes  uint64 `json:"rss"`
}

// serveChild is the serve process: app.Serve with the real GitHub client
// on the double, with a runner that claims each issue as a run does and
// returns. It writes events on stdout, answers "mem" on stdin with its
// memory, and ends (after the claims under way) when stdin closes.
func serveChild(host string) int {
	every, err1 := time.ParseDuration(os.Getenv(everyEnv))
	maxWait, err2 := time.ParseDuration(os.Getenv(maxWaitEnv))
	pem, err3 := os.ReadFile(os.Getenv(caEnv))
	if err1 != nil || err2 != nil || err3 != nil {
		fmt.Fprintln(os.Stderr, "serve-bench child: bad setup:", err1, err2, err3)
		return 2
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	c, err := github.New(github.Options{Host: host, Token: token,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve-bench child:", err)
		return 1
	}
	var mu sync.Mutex
	enc := json.NewEncoder(os.Stdout)
	emit := func(e event) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(e)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			if sc.Text() == "mem" {
				m := measure()
				emit(event{Mem: &m})
			}
		}
		cancel()
	}()
	polls := 0
	sleep := func(ctx context.Context, d time.Duration) error {
		polls++
		emit(event{Poll: polls})
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		}
	}
	// The run's claim, as RunIssue makes it, and its end; no agent runs:
	// the bench measures serve's polling.
	run := func(ctx context.Context, is forge.Issue) error {
		if err := c.Label(ctx, is.Ref, []string{"agentloop:running"}, []string{"agentloop"}); err != nil {
			return err
		}
		if err := c.Label(ctx, is.Ref, []string{"agentloop:done"}, []string{"agentloop:running"}); err != nil {
			return err
		}
		emit(event{Took: is.Ref.Number})
		return nil
	}
	repo := forge.Repo{Host: c.Host(), Owner: owner, Name: name}
	st, err := app.Serve(ctx, c, app.ServeOptions{
		Query:   forge.Query{Repo: repo, Labels: []string{"agentloop"}},
		Waiting: forge.Query{Repo: repo, Labels: []string{"agentloop:needs-you"}},
		Every:   every, MaxWait: maxWait, Sleep: sleep,
	}, run)
	e := event{Stats: &st}
	if err != nil {
		e.Err = err.Error()
	}
	emit(e)
	return 0
}

// measure is the process's Go heap after a GC and its resident set.
func measure() mem {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return mem{HeapBytes: ms.HeapAlloc, RSSBytes: rss()}
}

// rss is VmRSS from /proc/self/status, in bytes (0 when not found).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				kb, _ := strconv.ParseUint(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}
