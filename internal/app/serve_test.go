package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/forge/ghdouble"
	"github.com/agentloop/agentloop/internal/forge/github"
)

// serveDouble is a GitHub double over HTTPS holding repository o/r, and a
// client of it.
func serveDouble(t *testing.T) (*ghdouble.Server, *github.Client, forge.Repo) {
	t.Helper()
	return serveDoubleAt(t, nil)
}

// serveDoubleAt is serveDouble with the double's clock now (nil: the real one).
func serveDoubleAt(t *testing.T, now func() time.Time) (*ghdouble.Server, *github.Client, forge.Repo) {
	t.Helper()
	d := ghdouble.Start(t, ghdouble.Options{TLS: true, Now: now})
	d.AddToken("tok", ghdouble.Token{Login: "bot", Scopes: []string{"repo"}})
	d.AddRepo("o/r", ghdouble.Repo{})
	d.SetPermission("o/r", "bot", "write")
	d.SetPermission("o/r", "alice", "write")
	c, err := github.New(github.Options{Host: d.Host(), Token: "tok", Transport: d.Client().Transport, Sleep: noWait})
	if err != nil {
		t.Fatal(err)
	}
	return d, c, forge.Repo{Host: d.Host(), Owner: "o", Name: "r"}
}

// noWait is the client's backoff in these tests: the waits are serve's.
func noWait(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// claimRunner is an IssueRunner that claims each issue as a run does (the
// label agentloop off, agentloop:running on) and records it.
type claimRunner struct {
	f    forge.Forge
	mu   sync.Mutex
	ran  []int
	err  map[int]error
	done chan<- int // each run's issue, as it ends (nil: not said)
}

func (c *claimRunner) run(ctx context.Context, is forge.Issue) error {
	c.mu.Lock()
	c.ran = append(c.ran, is.Ref.Number)
	err := c.err[is.Ref.Number]
	c.mu.Unlock()
	if err == nil {
		err = c.f.Label(ctx, is.Ref, []string{"agentloop:running"}, []string{"agentloop"})
	}
	if c.done != nil {
		c.done <- is.Ref.Number
	}
	return err
}

func (c *claimRunner) numbers() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(slices.Values(c.ran))
}

// TestServeTakesEachIssueOnce: serve runs each labelled open issue once,
// leaves one blocked by an open issue until that one closes, and a poll
// that finds nothing changed costs only a conditional request, which GitHub
// does not count.
func TestServeTakesEachIssueOnce(t *testing.T) {
	d, c, repo := serveDouble(t)
	for _, n := range []int{1, 2, 3} {
		d.AddIssue("o/r", ghdouble.Issue{Number: n, Title: "task", Author: "alice", Labels: []string{"agentloop"}})
	}
	d.AddIssue("o/r", ghdouble.Issue{Number: 4, Title: "not for us", Author: "alice"})
	d.AddIssue("o/r", ghdouble.Issue{Number: 5, Title: "after 4", Author: "alice", Labels: []string{"agentloop"}, BlockedBy: []int{4}})
	done := make(chan int, 10)
	r := &claimRunner{f: c, done: done}
	clock := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wait := func(n int) {
		t.Helper()
		for range n {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("waited 10 s for a run; ran %v", r.numbers())
			}
		}
	}
	var notModified int
	polls := 0
	// Between polls (each Sleep), the test looks and moves the world on.
	sleep := func(ctx context.Context, dur time.Duration) error {
		polls++
		switch polls {
		case 1:
			wait(3)
			if got := r.numbers(); !slices.Equal(got, []int{1, 2, 3}) {
				t.Errorf("first poll ran issues %v, want [1 2 3] (5 is blocked by the open 4)", got)
			}
		case 2:
			// The list changed (the runs took their label off): 5 alone,
			// still blocked.
			notModified = d.NotModified()
		case 3:
			if d.NotModified() <= notModified {
				t.Errorf("the third poll, with nothing changed, made no conditional request that answered 304")
			}
			d.CloseIssue("o/r", 4)
		case 4:
			wait(1)
			cancel()
			return ctx.Err()
		}
		mu.Lock()
		clock = clock.Add(dur)
		mu.Unlock()
		return nil
	}
	o := ServeOptions{Query: forge.Query{Repo: repo, Labels: []string{"agentloop"}}, Parallel: 2,
		Every: time.Minute, Now: now, Sleep: sleep}
	st, err := Serve(ctx, c, o, r.run)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.numbers(); !slices.Equal(got, []int{1, 2, 3, 5}) {
		t.Errorf("ran %v, want [1 2 3 5]: each issue once, 5 after 4 closed", got)
	}
	// Polls 1, 2 and 4 find a change: the first list, the runs' labels, and
	// 5's count of open blockers (GitHub's issue_dependencies_summary) when
	// 4 closed; poll 3 finds none.
	if st.Started != 4 || st.Polls != 4 || st.Changed != 3 || st.Blocked != 1 {
		t.Errorf("stats %+v, want 4 started, 4 polls of which 3 found a change, 5 found blocked once (not read again until 4 closed)", st)
	}
}

// TestServeReadsABlockedIssueOnlyWhenItsBlockersChange: an issue blocked
// by an open issue is read once, not again at each wait while the list's
// count of its open blockers stays the same (GitHub counts those reads), and
// is taken at the first poll after its blocker closed, not after a wait.
func TestServeReadsABlockedIssueOnlyWhenItsBlockersChange(t *testing.T) {
	d, c, repo := serveDouble(t)
	blocker := d.AddIssue("o/r", ghdouble.Issue{Title: "not for us", Author: "alice"})
	blocked := d.AddIssue("o/r", ghdouble.Issue{Title: "after it", Author: "alice", Labels: []string{"agentloop"}, BlockedBy: []int{blocker}})
	done := make(chan int, 1)
	r := &claimRunner{f: c, done: done}
	clock := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	reads := func() (n int) {
		for _, q := range d.Requests() {
			if q.Method == "GET" && strings.HasSuffix(q.Path, fmt.Sprintf("/issues/%d", blocked)) {
				n++
			}
		}
		return n
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	polls := 0
	o := ServeOptions{Query: forge.Query{Repo: repo, Labels: []string{"agentloop"}}, Every: time.Minute, Now: now,
		Sleep: func(ctx context.Context, dur time.Duration) error {
			polls++
			switch polls {
			case 20:
				if n := reads(); n != 1 {
					t.Errorf("the blocked issue was read %d times in 20 polls with nothing changed, want once", n)
				}
				d.CloseIssue("o/r", blocker)
			case 21:
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Error("the issue was not taken at the poll after its blocker closed")
				}
				cancel()
				return ctx.Err()
			}
			mu.Lock()
			clock = clock.Add(dur)
			mu.Unlock()
			return nil
		}}
	st, err := Serve(ctx, c, o, r.run)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.numbers(); !slices.Equal(got, []int{blocked}) || st.Blocked != 1 {
		t.Errorf("ran %v (%+v), want #%d once, found blocked once", got, st, blocked)
	}
}

// TestServeRetriesAFailedRunLater: a run that failed is taken again after a
// wait that doubles, not at the next poll.
func TestServeRetriesAFailedRunLater(t *testing.T) {
	d, c, repo := serveDouble(t)
	d.AddIssue("o/r", ghdouble.Issue{Number: 1, Title: "task", Author: "alice", Labels: []string{"agentloop"}})
	r := &claimRunner{f: c, err: map[int]error{1: errors.New("push refused")}}
	clock := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	o := ServeOptions{Query: forge.Query{Repo: repo, Labels: []string{"agentloop"}}, Every: time.Minute, Now: now}
	ctx, cancel := context.WithCancel(context.Background())
	polls := 0
	// Each sleep is a poll's wait: the clock moves by it, and after six
	// polls serve is stopped.
	o.Sleep = func(ctx context.Context, d time.Duration) error {
		polls++
		if polls == 6 {
			cancel()
			return ctx.Err()
		}
		advance(d)
		return nil
	}
	st, err := Serve(ctx, c, o, r.run)
	if err != nil {
		t.Fatal(err)
	}
	// Polls at 0, 1, 2, 3, 4, 5 minutes: runs at 0 (fails, again after 1
	// min), 1 (fails, after 2), 3 (fails, after 4): three runs, not six.
	if got := len(r.numbers()); got != 3 || st.Errors != 3 {
		t.Errorf("ran %d times (%+v), want 3: a failed run is taken again after a doubling wait", got, st)
	}
}

// TestServeStopsOnARefusedToken: a token GitHub refuses ends serve with the
// error at once; no wait mends it.
func TestServeStopsOnARefusedToken(t *testing.T) {
	d, _, repo := serveDouble(t)
	bad, err := github.New(github.Options{Host: d.Host(), Token: "wrong", Transport: d.Client().Transport})
	if err != nil {
		t.Fatal(err)
	}
	o := ServeOptions{Query: forge.Query{Repo: repo}, Sleep: func(context.Context, time.Duration) error {
		t.Fatal("serve waited to poll again with a refused token")
		return nil
	}}
	_, err = Serve(context.Background(), bad, o, func(context.Context, forge.Issue) error { return nil })
	if !errors.Is(err, forge.ErrAuth) {
		t.Fatalf("Serve with a refused token = %v, want forge.ErrAuth", err)
	}
}

// TestServeBacksOffAFailingForge: a poll that fails is waited out, the wait
// doubling up to MaxWait, and back to Every after one that did not.
func TestServeBacksOffAFailingForge(t *testing.T) {
	d, c, repo := serveDouble(t)
	d.FailNext("GET", "/repos/o/r/issues", 12, 502) // beyond the client's own retries, three polls over
	var waits []time.Duration
	ctx, cancel := context.WithCancel(context.Background())
	o := ServeOptions{Query: forge.Query{Repo: repo}, Every: time.Minute, MaxWait: 3 * time.Minute,
		Sleep: func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			if len(waits) == 4 {
				cancel()
				return ctx.Err()
			}
			return nil
		}}
	st, err := Serve(ctx, c, o, func(context.Context, forge.Issue) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute, time.Minute}
	if !slices.Equal(waits, want) || st.Failed != 3 {
		t.Errorf("waits %v (%+v), want %v: doubling from Every up to MaxWait while polls fail, Every after one that did not", waits, st, want)
	}
}

// TestServeSkipsAnIssueClaimedSinceTheList: an issue another agentloop
// claimed after the list was read (its label moved) is not taken.
func TestServeSkipsAnIssueClaimedSinceTheList(t *testing.T) {
	d, c, repo := serveDouble(t)
	for _, n := range []int{1, 2} {
		d.AddIssue("o/r", ghdouble.Issue{Number: n, Title: "task", Author: "alice", Labels: []string{"agentloop"}})
	}
	var ran []int
	run := func(ctx context.Context, is forge.Issue) error {
		ran = append(ran, is.Ref.Number)
		// Meanwhile another agentloop claims the other issue.
		other := is.Ref
		other.Number = 3 - is.Ref.Number
		return c.Label(ctx, other, []string{"agentloop:running"}, []string{"agentloop"})
	}
	o := ServeOptions{Query: forge.Query{Repo: repo, Labels: []string{"agentloop"}}, Once: true}
	if _, err := Serve(context.Background(), c, o, run); err != nil {
		t.Fatal(err)
	}
	if len(ran) != 1 {
		t.Errorf("ran %v, want one issue: the other was claimed before its turn", ran)
	}
}

// TestServeTakesAWaitingIssueAgainWhenItChanges: an issue that waits for a
// person is taken on first sight (an answer may have come while serve was
// down), then again only when it changed (a comment), so its run reads the
// answer.
func TestServeTakesAWaitingIssueAgainWhenItChanges(t *testing.T) {
	var mu sync.Mutex
	clock := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	d, c, repo := serveDoubleAt(t, now)
	n := d.AddIssue("o/r", ghdouble.Issue{Title: "asked", Author: "alice", Labels: []string{"agentloop:needs-you"}})
	done := make(chan int, 4)
	run := func(_ context.Context, is forge.Issue) error { done <- is.Ref.Number; return nil }
	ran := func() int {
		select {
		case n := <-done:
			return n
		case <-time.After(10 * time.Second):
			t.Fatal("waited 10 s for a run")
		}
		return 0
	}
	polls := 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := ServeOptions{Query: forge.Query{Repo: repo, Labels: []string{"agentloop"}},
		Waiting: forge.Query{Repo: repo, Labels: []string{"agentloop:needs-you"}},
		Sleep: func(ctx context.Context, _ time.Duration) error {
			polls++
			switch polls {
			case 1:
				ran() // on first sight
			case 2:
				select {
				case n := <-done:
					t.Errorf("the unchanged waiting issue %d was taken again", n)
				default:
				}
				mu.Lock()
				clock = clock.Add(time.Minute)
				mu.Unlock()
				d.AddComment("o/r", n, "alice", "/agentloop guide use the v2 API")
			case 3:
				if got := ran(); got != n {
					t.Errorf("ran %d after the comment, want %d", got, n)
				}
				cancel()
				return ctx.Err()
			}
			return nil
		}}
	if _, err := Serve(ctx, c, o, run); err != nil {
		t.Fatal(err)
	}
}
