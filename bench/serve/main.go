// Command serve-bench measures what `agentloop serve` asks of GitHub while
// it polls a repository's issues, against the 5,000 requests an hour GitHub
// gives a token, and whether its memory stays flat as issues come and go
// (issue 39).
//
// The GitHub double (internal/forge/ghdouble, over HTTPS) runs in this
// process, seeded with -issues open issues labelled agentloop, a share of
// them (-blocked) blocked by open issues that are not. serve runs in a child
// process (this binary again) as `agentloop serve` runs it: app.Serve with
// the real GitHub client, the list of agentloop issues and the list of
// agentloop:needs-you issues polled every -every, so its memory (Go heap
// after a GC, RSS) is serve's alone. Its runner claims each issue as a run
// does (agentloop → agentloop:running → agentloop:done) and returns: no agent
// runs, the bench measures the polling.
//
// The phases: drain (serve takes every issue not blocked; requests per issue
// taken, by endpoint), idle (nothing changes for -idle polls; requests per
// poll GitHub counts, which should be none, and conditional requests
// answered 304, which it does not count), churn (-rate new issues a second
// for -minutes, each taken; requests per new issue; serve's memory at the
// start and end), unblock (the blockers closed, the blocked issues taken).
// The figures are then scaled to serve's default poll, a minute (60 polls an
// hour): serve's waits after a failure or a blocked issue are scaled with
// its poll (-every × 15, as a minute's is 15 minutes), so a poll here stands
// for a minute there.
//
//	go run ./bench/serve [-issues 1000] [-every 50ms] [-idle 300] [-minutes 1] [-rate 10]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/forge/ghdouble"
)

// budget is the requests an hour GitHub gives a token.
const budget = 5000

// pollsPerHour is serve's default poll, a minute, in polls an hour.
const pollsPerHour = 60

func main() {
	if host := os.Getenv(childEnv); host != "" {
		os.Exit(serveChild(host))
	}
	var c config
	flag.IntVar(&c.issues, "issues", 1000, "open issues labelled agentloop in the double at the start")
	flag.Float64Var(&c.blocked, "blocked", 0.5, "the share of them blocked by an open issue until the last phase")
	flag.DurationVar(&c.every, "every", 50*time.Millisecond, "serve's poll (it stands for serve's default, a minute)")
	flag.IntVar(&c.idle, "idle", 300, "polls with nothing changed")
	minutes := flag.Float64("minutes", 1, "how long issues come and go, in minutes")
	flag.IntVar(&c.rate, "rate", 10, "new issues a second while they come and go")
	flag.Parse()
	c.churn = time.Duration(*minutes * float64(time.Minute))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute+2*c.churn)
	defer cancel()
	r, err := run(ctx, c, os.Stdout)
	if err == nil {
		err = r.anomaly()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve-bench:", err)
		os.Exit(1)
	}
}

// config is one run of the bench.
type config struct {
	issues  int
	blocked float64
	every   time.Duration
	idle    int
	churn   time.Duration
	rate    int
}

// result is what a run measured.
type result struct {
	issues, blocked int
	// taken counts each issue's claims: each once is right.
	taken map[int]int
	// expected are the issues that should have been taken.
	expected []int
	drain    phase
	idle     phase
	churn    phase
	unblock  phase
	// memStart and memEnd are serve's memory when churn started and ended;
	// mems every sample.
	memStart, memEnd mem
	mems             []mem
	violations       []string
	serveErr         string
}

// phase is what the double answered in one phase.
type phase struct {
	polls, taken int
	wall         time.Duration
	// counted are the answers GitHub counts against the rate limit, by
	// endpoint; notModified the conditional requests answered 304.
	counted     map[string]int
	notModified int
}

// isRun says the endpoint is the run's claim (its labels), not serve's.
func isRun(endpoint string) bool { return strings.Contains(endpoint, "/labels") }

// serveCounted and runCounted are the counted requests of serve and of
// the runs' claims.
func (p phase) serveCounted() (n int) {
	for e, k := range p.counted {
		if !isRun(e) {
			n += k
		}
	}
	return n
}

func (p phase) runCounted() (n int) {
	for e, k := range p.counted {
		if isRun(e) {
			n += k
		}
	}
	return n
}

// anomaly is what went wrong that the figures would hide: an issue taken
// twice or never, a request GitHub counts while nothing changed, an answer
// of the double that GitHub's description does not allow.
func (r result) anomaly() error {
	var errs []error
	for _, n := range r.expected {
		switch k := r.taken[n]; {
		case k == 0:
			errs = append(errs, fmt.Errorf("issue #%d was never taken", n))
		case k > 1:
			errs = append(errs, fmt.Errorf("issue #%d was taken %d times", n, k))
		}
	}
	if n := r.idle.serveCounted() + r.idle.runCounted(); n > 0 {
		errs = append(errs, fmt.Errorf("%d requests GitHub counts in %d polls with nothing changed (%v), want none", n, r.idle.polls, r.idle.counted))
	}
	for _, v := range r.violations {
		errs = append(errs, fmt.Errorf("the double answered what GitHub's description does not allow: %s", v))
	}
	if r.serveErr != "" {
		errs = append(errs, fmt.Errorf("serve: %s", r.serveErr))
	}
	return errors.Join(errs...)
}

// child is the serve process and what it said.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser

	mu    sync.Mutex
	polls int
	taken map[int]int
	took  int
	mems  chan mem
	end   chan event
}

func run(ctx context.Context, c config, out io.Writer) (result, error) {
	d, err := ghdouble.New(ghdouble.Options{TLS: true, Limit: 1 << 30})
	if err != nil {
		return result{}, err
	}
	defer d.Close()
	d.AddToken(token, ghdouble.Token{Login: "bot", Scopes: []string{"repo"}})
	full := owner + "/" + name
	d.AddRepo(full, ghdouble.Repo{})
	d.SetPermission(full, "bot", "write")
	d.SetPermission(full, "alice", "write")

	r := result{issues: c.issues}
	// The blockers: issues serve does not take, each blocking some.
	nb := int(float64(c.issues) * c.blocked)
	var blockers []int
	for range (nb + 9) / 10 {
		blockers = append(blockers, d.AddIssue(full, ghdouble.Issue{Title: "a blocker", Author: "alice"}))
	}
	var blocked []int
	for i := range c.issues {
		is := ghdouble.Issue{Title: fmt.Sprintf("task %d", i), Body: "do it", Author: "alice", Labels: []string{"agentloop"}}
		if i*nb/c.issues != (i+1)*nb/c.issues { // nb of them, spread
			is.BlockedBy = []int{blockers[len(blocked)%len(blockers)]}
		}
		n := d.AddIssue(full, is)
		r.expected = append(r.expected, n)
		if is.BlockedBy != nil {
			blocked = append(blocked, n)
		}
	}
	r.blocked = len(blocked)
	if err := d.Listen("127.0.0.1:0"); err != nil {
		return r, err
	}

	ch, err := startChild(d, c)
	if err != nil {
		return r, err
	}
	defer ch.stop()
	fmt.Fprintf(out, "serve-bench: %d open issues labelled agentloop, %d of them blocked by %d open issues; serve polls every %s (standing for a minute); load %s\n",
		c.issues, len(blocked), len(blockers), c.every, loadavg())

	// mark is where a phase starts; measure what it did since.
	type mark struct {
		reqs, polls, taken int
		at                 time.Time
	}
	markNow := func() mark { return mark{len(d.Requests()), ch.pollCount(), ch.tookCount(), time.Now()} }
	measure := func(m mark) phase {
		reqs := d.Requests()[m.reqs:]
		p := phase{polls: ch.pollCount() - m.polls, taken: ch.tookCount() - m.taken, wall: time.Since(m.at), counted: map[string]int{}}
		for _, q := range reqs {
			if q.Status == 304 {
				p.notModified++
			} else {
				p.counted[q.Endpoint]++
			}
		}
		return p
	}
	// settled waits until want issues are taken and two more polls ended.
	settled := func(want int, what string) error {
		if err := ch.waitFor(ctx, func() bool { return ch.tookCount() >= want }, what); err != nil {
			return err
		}
		p := ch.pollCount()
		return ch.waitFor(ctx, func() bool { return ch.pollCount() >= p+2 }, what)
	}

	// Drain.
	m := mark{}
	m.at = time.Now()
	if err := settled(c.issues-len(blocked), "serve to take the issues not blocked"); err != nil {
		return r, err
	}
	r.drain = measure(m)

	// Idle.
	m = markNow()
	if err := ch.waitFor(ctx, func() bool { return ch.pollCount() >= m.polls+c.idle }, "the idle polls"); err != nil {
		return r, err
	}
	r.idle = measure(m)

	// Churn.
	if r.memStart, err = ch.mem(ctx); err != nil {
		return r, err
	}
	m = markNow()
	added := 0
	tick := time.NewTicker(time.Second / time.Duration(max(c.rate, 1)))
	sample := time.NewTicker(5 * time.Second)
	for time.Since(m.at) < c.churn {
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-sample.C:
			m, err := ch.mem(ctx)
			if err != nil {
				return r, err
			}
			r.mems = append(r.mems, m)
		case <-tick.C:
			n := d.AddIssue(full, ghdouble.Issue{Title: fmt.Sprintf("new task %d", added), Body: "do it", Author: "alice", Labels: []string{"agentloop"}})
			r.expected = append(r.expected, n)
			added++
		}
	}
	tick.Stop()
	sample.Stop()
	if err := settled(m.taken+added, "serve to take the new issues"); err != nil {
		return r, err
	}
	r.churn = measure(m)
	if r.memEnd, err = ch.mem(ctx); err != nil {
		return r, err
	}

	// Unblock.
	m = markNow()
	for _, b := range blockers {
		d.CloseIssue(full, b)
	}
	if err := settled(m.taken+len(blocked), "serve to take the issues once unblocked"); err != nil {
		return r, err
	}
	r.unblock = measure(m)

	end := ch.stop()
	r.taken = ch.takenCopy()
	r.serveErr = end.Err
	r.violations = d.Violations()
	r.print(out, c)
	return r, nil
}

func startChild(d *ghdouble.Server, c config) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+d.Host(), caEnv+"="+d.CAFile(),
		everyEnv+"="+c.every.String(), maxWaitEnv+"="+(15*c.every).String())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start serve: %w", err)
	}
	ch := &child{cmd: cmd, stdin: stdin, taken: map[int]int{}, mems: make(chan mem, 1), end: make(chan event, 1)}
	go func() {
		sc := bufio.NewScanner(stdout)
		ended := false
		for sc.Scan() {
			var e event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				continue
			}
			ch.mu.Lock()
			if e.Poll > 0 {
				ch.polls = e.Poll
			}
			if e.Took > 0 {
				ch.taken[e.Took]++
				ch.took++
			}
			ch.mu.Unlock()
			if e.Mem != nil {
				ch.mems <- *e.Mem
			}
			if e.Stats != nil {
				ch.end <- e
				ended = true
			}
		}
		if !ended {
			ch.end <- event{Err: "serve ended without its stats"}
		}
	}()
	return ch, nil
}

func (ch *child) pollCount() int {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.polls
}

func (ch *child) tookCount() int {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.took
}

func (ch *child) takenCopy() map[int]int {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return maps.Clone(ch.taken)
}

// waitFor waits until ok, checking every few milliseconds.
func (ch *child) waitFor(ctx context.Context, ok func() bool, what string) error {
	for !ok() {
		select {
		case <-ctx.Done():
			ch.mu.Lock()
			defer ch.mu.Unlock()
			return fmt.Errorf("waiting for %s: %w (%d polls, %d issues taken)", what, ctx.Err(), ch.polls, ch.took)
		case e := <-ch.end:
			ch.end <- e
			return fmt.Errorf("waiting for %s: serve ended: %s", what, e.Err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}

// mem asks serve for its memory.
func (ch *child) mem(ctx context.Context) (mem, error) {
	if _, err := io.WriteString(ch.stdin, "mem\n"); err != nil {
		return mem{}, fmt.Errorf("ask serve for its memory: %w", err)
	}
	select {
	case m := <-ch.mems:
		return m, nil
	case <-ctx.Done():
		return mem{}, ctx.Err()
	}
}

// stop ends serve (its stdin closed) and returns its last word.
func (ch *child) stop() event {
	if ch.stdin == nil {
		return event{}
	}
	ch.stdin.Close()
	ch.stdin = nil
	var e event
	select {
	case e = <-ch.end:
	case <-time.After(10 * time.Second):
		_ = ch.cmd.Process.Kill()
		e = event{Err: "serve did not end within 10 s of its stdin closing"}
	}
	_ = ch.cmd.Wait()
	return e
}

func (r result) print(out io.Writer, c config) {
	perHour := func(perPoll float64) float64 { return perPoll * pollsPerHour }
	per := func(n, d int) float64 {
		if d == 0 {
			return 0
		}
		return float64(n) / float64(d)
	}
	// endpoints are serve's counted requests per endpoint, divided by div.
	endpoints := func(p phase, div int) string {
		var parts []string
		for _, e := range slices.Sorted(maps.Keys(p.counted)) {
			if isRun(e) {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s %.2f", e, per(p.counted[e], div)))
		}
		if parts == nil {
			return "none"
		}
		return strings.Join(parts, "; ")
	}
	// every is a phase's mean time between polls: serve's waits are
	// scaled to -every, so a poll stands for a minute when it is near -every.
	every := func(p phase) time.Duration {
		if p.polls == 0 {
			return 0
		}
		return (p.wall / time.Duration(p.polls)).Round(time.Millisecond)
	}
	fmt.Fprintf(out, "\ndrain: %d issues taken in %d polls (%s a poll); requests GitHub counts per issue taken: serve %.2f (%s), the run's claim %.2f; conditional 304s %d\n",
		r.drain.taken, r.drain.polls, every(r.drain), per(r.drain.serveCounted(), r.drain.taken), endpoints(r.drain, r.drain.taken), per(r.drain.runCounted(), r.drain.taken), r.drain.notModified)
	idleCounted := per(r.idle.serveCounted()+r.idle.runCounted(), r.idle.polls)
	idle304 := per(r.idle.notModified, r.idle.polls)
	fmt.Fprintf(out, "idle: %d polls (%s a poll), %d issues listed (blocked); per poll: %.2f requests GitHub counts (%s), %.2f conditional 304s (not counted)\n",
		r.idle.polls, every(r.idle), r.blocked, idleCounted, endpoints(r.idle, r.idle.polls), idle304)
	fmt.Fprintf(out, "churn: %d new issues over %s in %d polls (%s a poll), each taken; per new issue: serve %.2f counted (%s), the run's claim %.2f; conditional 304s per poll %.2f\n",
		r.churn.taken, c.churn, r.churn.polls, every(r.churn), per(r.churn.serveCounted(), r.churn.taken), endpoints(r.churn, r.churn.taken), per(r.churn.runCounted(), r.churn.taken), per(r.churn.notModified, r.churn.polls))
	fmt.Fprintf(out, "unblock: %d issues taken once their blockers closed, in %d polls (%s a poll); per issue: serve %.2f counted (%s)\n",
		r.unblock.taken, r.unblock.polls, every(r.unblock), per(r.unblock.serveCounted(), r.unblock.taken), endpoints(r.unblock, r.unblock.taken))

	mib := func(b uint64) float64 { return float64(b) / (1 << 20) }
	var hmin, hmax, rmax uint64
	for i, m := range append([]mem{r.memStart, r.memEnd}, r.mems...) {
		if i == 0 || m.HeapBytes < hmin {
			hmin = m.HeapBytes
		}
		hmax, rmax = max(hmax, m.HeapBytes), max(rmax, m.RSSBytes)
	}
	ratio := per(int(r.memEnd.HeapBytes), int(r.memStart.HeapBytes))
	verdict := "flat"
	if ratio > 1.10 {
		verdict = "NOT flat"
	}
	fmt.Fprintf(out, "serve's memory over churn: heap after GC %.2f MiB at the start, %.2f MiB at the end (end/start %.2f, target ≤ 1.10: %s; %d samples %.2f–%.2f MiB); RSS %.1f → %.1f MiB (largest %.1f)\n",
		mib(r.memStart.HeapBytes), mib(r.memEnd.HeapBytes), ratio, verdict, len(r.mems)+2, mib(hmin), mib(hmax), mib(r.memStart.RSSBytes), mib(r.memEnd.RSSBytes), mib(rmax))

	perIssue := per(r.churn.serveCounted(), r.churn.taken)
	claim := per(r.churn.runCounted(), r.churn.taken)
	idleHour := perHour(idleCounted)
	fmt.Fprintf(out, "\nat serve's default poll, a minute (%d polls an hour), against GitHub's %d requests an hour for a token:\n", pollsPerHour, budget)
	fmt.Fprintf(out, "  idle: %.0f counted requests an hour (%.3f of the budget); %.0f conditional requests an hour, not counted (%.2f per poll: the pages of two lists)\n",
		idleHour, idleHour/budget, perHour(idle304), idle304)
	left := budget - idleHour
	fmt.Fprintf(out, "  each issue taken: %.2f counted requests of serve's, %.2f of the run's claim (labels; the run's own requests, its comment and pull request, are not measured here)\n", perIssue, claim)
	switch {
	case left <= 0:
		fmt.Fprintf(out, "  a token's %d an hour take no issue: polling alone spends them\n", budget)
	case perIssue > 0:
		fmt.Fprintf(out, "  a token's %d an hour take %.0f issues an hour at serve's cost alone, %.0f with the claim\n", budget, left/perIssue, left/(perIssue+claim))
	}
	fmt.Fprintf(out, "  (here %.1f new issues came a poll, and they shared the list's pages read again; at a minute's poll the issues of a minute share them, so an issue's cost falls toward its one read)\n", per(r.churn.taken, r.churn.polls))
	fmt.Fprintf(out, "load %s\n", loadavg())
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
