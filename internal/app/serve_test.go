package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/forge/ghdouble"
	"github.com/agentloop/agentloop/internal/forge/github"
	"github.com/agentloop/agentloop/internal/state"
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
	// A run ends on its own goroutine, which puts its issue off from the
	// clock as it is then: each poll's wait moves the clock only once the
	// runs it took have ended (said in the log), else a run ending after
	// the move was put off from a later time (1 run in 20-40 under load).
	runs, log := trackRuns()
	o := ServeOptions{Query: forge.Query{Repo: repo, Labels: []string{"agentloop"}}, Every: time.Minute, Now: now, Log: log}
	ctx, cancel := context.WithCancel(context.Background())
	polls := 0
	// Each sleep is a poll's wait: the clock moves by it, and after six
	// polls serve is stopped.
	o.Sleep = func(ctx context.Context, d time.Duration) error {
		runs.settle(t)
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
	runs, log := trackRuns()
	o := ServeOptions{Query: forge.Query{Repo: repo, Labels: []string{"agentloop"}},
		Waiting: forge.Query{Repo: repo, Labels: []string{"agentloop:needs-you"}}, Log: log,
		Sleep: func(ctx context.Context, _ time.Duration) error {
			runs.settle(t) // a run's end is its bookkeeping's too
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

// TestServeWatchesOwnedPullRequests: an issue whose run here owns an open
// pull request is taken again on the first poll and every fifth after, not
// at every poll: its run reads the pull request in several requests. At a
// poll a minute, an hour is 12 reads of a green pull request with a check
// and a review, 5 requests each (the pull request, its head's checks, its
// reviews, its threads, its comments), and once a reviewer's permission
// and a second read while GitHub computes whether it merges: 62 requests
// per watched pull request per hour, of GitHub's 5,000 for a token.
func TestServeWatchesOwnedPullRequests(t *testing.T) {
	d, c, repo := serveDouble(t)
	d.AddIssue("o/r", ghdouble.Issue{Number: 1, Title: "task", Author: "alice", Labels: []string{"agentloop:done"}})
	pr := d.AddPR("o/r", ghdouble.PR{Title: "task", Author: "bot", Head: "agentloop/issue/1", Base: "main"})
	d.AddCheckRun("o/r", "agentloop/issue/1", ghdouble.CheckRun{Name: "test", Conclusion: "success"})
	d.AddReview("o/r", pr, ghdouble.Review{Author: "alice", State: "APPROVED"})
	ref := forge.IssueRef{Repo: repo, Number: 1}
	done := make(chan struct{}, 1)
	var reads int
	run := func(ctx context.Context, is forge.Issue) error {
		defer func() { done <- struct{}{} }()
		if is.Ref != ref {
			t.Errorf("took %s", is.Ref)
		}
		reads++
		_, err := c.PRStatus(ctx, repo, pr) // what RunIssue reads of an owned pull request
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	polls := 0
	clock := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	runs, log := trackRuns()
	o := ServeOptions{Query: forge.Query{Repo: repo, Labels: []string{"agentloop"}}, Every: time.Minute,
		Now:   func() time.Time { mu.Lock(); defer mu.Unlock(); return clock },
		Owned: func() []forge.IssueRef { return []forge.IssueRef{ref} }, Log: log}
	o.Sleep = func(ctx context.Context, dur time.Duration) error {
		// A run's end is its bookkeeping's too: a poll while it is still
		// under way does not take its issue (10 s waited for at load).
		runs.settle(t)
		mu.Lock()
		clock = clock.Add(dur)
		mu.Unlock()
		polls++
		if (polls-1)%5 == 0 {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("poll %d: waited 10 s for the owned issue's run", polls)
			}
		}
		if polls == 60 { // an hour of polls a minute apart
			cancel()
			return ctx.Err()
		}
		return nil
	}
	before := len(d.Requests())
	st, err := Serve(ctx, c, o, run)
	if err != nil {
		t.Fatal(err)
	}
	lists := d.Count("GET /repos/{owner}/{repo}/issues")
	perHour := len(d.Requests()) - before - lists
	if reads != 12 || st.Owned != 12 || perHour != 62 {
		t.Errorf("in an hour: %d reads of the pull request (%+v), %d requests for it %v; want 12 reads, 62 requests", reads, st, perHour, d.Counts())
	}
	t.Logf("one watched pull request: %d requests an hour at a poll a minute (%d lists of issues besides, %d answered 304)", perHour, lists, d.NotModified())
}

// TestOwnedIssues: serve watches the issues of its repository whose run
// here succeeded with its pull request open, and those whose continuation
// for it no process runs (killed, or ended before its push), and no other:
// a continuation that stopped for a person waits labelled needs-you.
func TestOwnedIssues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	repo := forge.Repo{Host: "github.com", Owner: "acme", Name: "tool"}
	for _, st := range []*state.State{
		{Name: "issue-1", Status: state.StatusSucceeded, Issue: &state.Issue{Ref: "acme/tool#1", PR: 10}},
		{Name: "issue-2", Status: state.StatusSucceeded, Issue: &state.Issue{Ref: "acme/tool#2", PR: 11, Ended: "merged"}},
		{Name: "issue-3", Status: state.StatusEscalated, Issue: &state.Issue{Ref: "acme/tool#3", PR: 12}},
		{Name: "issue-4", Status: state.StatusSucceeded, Issue: &state.Issue{Ref: "other/tool#4", PR: 13}},
		{Name: "issue-5", Status: state.StatusSucceeded, Issue: &state.Issue{Ref: "acme/tool#5"}},
		{Name: "issue-6", Status: state.StatusSucceeded, Issue: &state.Issue{Ref: "acme/tool#6", PR: 14, Fixing: "review"}},
		{Name: "issue-7", Status: state.StatusRunning, Issue: &state.Issue{Ref: "acme/tool#7", PR: 15, Fixing: "check lint"}},
		{Name: "issue-8", Status: state.StatusEscalated, Issue: &state.Issue{Ref: "acme/tool#8", PR: 16, Fixing: "check lint"}},
		{Name: "issue-9", Status: state.StatusAborted, Issue: &state.Issue{Ref: "acme/tool#9", PR: 17, Fixing: "conflict"}},
		{Name: "build", Status: state.StatusSucceeded},
	} {
		save(t, dir, st)
	}
	want := []forge.IssueRef{{Repo: repo, Number: 1}, {Repo: repo, Number: 6}, {Repo: repo, Number: 7}}
	if got := ownedIssues(t.Context(), localIssues{store: state.Store{Root: dir}}, repo); !slices.Equal(got, want) {
		t.Errorf("ownedIssues = %v, want %v", got, want)
	}
}

// TestCloneHolds: run --issue and serve work on a repository's issues only
// in a clone whose remote names it (GitHub's names match in any case), or
// names no forge at all.
func TestCloneHolds(t *testing.T) {
	acme := forge.Repo{Host: "github.com", Owner: "acme", Name: "tool"}
	for _, tt := range []struct {
		clone, repo forge.Repo
		want        bool
	}{
		{acme, acme, true},
		{acme, forge.Repo{Host: "github.com", Owner: "ACME", Name: "Tool"}, true},
		{acme, forge.Repo{Host: "github.com", Owner: "acme", Name: "other"}, false},
		{acme, forge.Repo{Host: "ghe.example.com", Owner: "acme", Name: "tool"}, false},
		{forge.Repo{}, acme, true},
	} {
		if got := cloneHolds(tt.clone, tt.repo); got != tt.want {
			t.Errorf("cloneHolds(%s, %s) = %v, want %v", tt.clone, tt.repo, got, tt.want)
		}
	}
}

// serve is a serve of the issue case's repository, as `agentloop serve`
// watches it ([issueServeOptions]), each issue run as run --issue runs it:
// polls polls, each waited out with its runs. Each call is a serve
// started afresh (a restart); Now stays at epoch, so no failed run is
// taken again.
func (c *issueCase) serve(t *testing.T, polls int) ServeStats {
	t.Helper()
	return c.serveParallel(t, polls, 1)
}

// serveParallel is serve running parallel issues at once.
func (c *issueCase) serveParallel(t *testing.T, polls, parallel int) ServeStats {
	t.Helper()
	store := state.Store{Root: filepath.Join(c.repo, ".agentloop")}
	o := issueServeOptions(t.Context(), forge.Query{Repo: c.f.issue.Ref.Repo, Labels: []string{"agentloop"}}, config.DefaultIssueLabels, localIssues{store: store})
	clock := epoch // a minute on at each poll, as serve's sleep
	o.Now, o.Parallel = func() time.Time { return clock }, parallel
	memo := newIssueMemo() // as ServeIssues keeps it
	o.Quiet = memo.quietNow
	s := newServer(c.f, o, func(ctx context.Context, is forge.Issue) error {
		io := c.opts
		io.Ref, io.Plan = is.Ref.String(), c.plan()
		pr := testProcess(c.repo)
		pr.Stderr = c.out
		return memo.run(is.Ref, io, c.out, func(io IssueOptions) (Outcome, error) { return RunIssue(ctx, c.eng, pr, io) })
	})
	for range polls {
		if err := s.poll(t.Context()); err != nil {
			t.Fatalf("poll: %v", err)
		}
		s.wg.Wait()
		clock = clock.Add(s.every)
	}
	return s.result()
}

// TestServeGoesOnWithAKilledContinuation: a continuation for the pull
// request's failing check killed mid-run (its record says which, its
// labels say running) is taken by the serve started again and goes on as
// run --issue goes on: the same continuation finished and pushed, the pull
// request updated, no second one and no comment posted.
func TestServeGoesOnWithAKilledContinuation(t *testing.T) {
	t.Parallel()
	c := newIssueCase(t, state.StatusSucceeded)
	if st := c.serve(t, 1); st.Started != 1 || len(c.f.prs) != 1 {
		t.Fatalf("serve: %+v, %d pull requests\n%s", st, len(c.f.prs), c.out)
	}
	c.f.check("lint", "failure", "FAIL")
	posted, opened := c.f.posted, c.f.opened
	c.eng.kill = true
	if st := c.serve(t, 1); st.Owned != 1 || st.Errors != 1 || c.state(t).Issue.Fixing != "check lint" {
		t.Fatalf("the killed continuation: %+v, fixing %q\n%s", st, c.state(t).Issue.Fixing, c.out)
	}
	st := c.serve(t, 1)
	if st.Owned != 1 || st.Errors != 0 || len(c.eng.resumes) != 2 || c.eng.resumes[1].Reopen {
		t.Fatalf("serve again: %+v, %d resumes (want the killed one gone on with, not reopened)\n%s", st, len(c.eng.resumes), c.out)
	}
	if c.f.opened != opened+1 || len(c.f.prs) != 1 || c.f.posted != posted || !slices.Equal(c.f.labelSet(), []string{"agentloop:done"}) {
		t.Errorf("serve again: %d OpenPR calls (was %d), %d pull requests, %d comments (was %d), labels %v", c.f.opened, opened, len(c.f.prs), c.f.posted, posted, c.f.labelSet())
	}
	if st := c.state(t); st.Issue.Fixes["check lint"] != 1 || st.Issue.Fixing != "" {
		t.Errorf("serve again: fixes %v, fixing %q", st.Issue.Fixes, st.Issue.Fixing)
	}
}

// TestServeTakesAnEscalatedIssueOnlyForAPersonsComment: serve's own writes
// on an issue (its question, its labels, its progress comment) are no
// change that takes it again, at the next poll nor in a serve started
// afresh; a person's comment is: a stranger's command is ignored and
// counted, and it is not taken again for its own writes then; a writer's
// answer goes on with the run, to its pull request.
func TestServeTakesAnEscalatedIssueOnlyForAPersonsComment(t *testing.T) {
	t.Parallel()
	c := newIssueCase(t, state.StatusEscalated, state.StatusSucceeded)
	if st := c.serve(t, 1); st.Started != 1 || c.state(t).Status != state.StatusEscalated || len(c.f.marked("escalation")) != 1 {
		t.Fatalf("serve: %+v, the run %s\n%s", st, c.state(t).Status, c.out)
	}
	quiet := func(what string, polls int) {
		t.Helper()
		edits, labels, out := c.f.edits, c.f.clock, c.out.Len()
		if st := c.serve(t, polls); st.Started != 0 || c.f.edits != edits || c.f.clock != labels || c.out.Len() != out {
			t.Errorf("%s: %+v, %d edits (was %d), the forge written (%v), said %q: its own writes took it again", what, st, c.f.edits, edits, c.f.clock != labels, c.out.String()[out:])
		}
	}
	quiet("serve again", 3)
	c.f.say("stranger", false, "/agentloop accept")
	if st := c.serve(t, 1); st.Started != 1 || len(c.eng.resumes) != 0 || !strings.Contains(c.f.marked("progress")[0].Body, "1 `/agentloop` command by people who cannot write to this repository was ignored") {
		t.Errorf("a stranger's command: %+v, %d resumes, progress:\n%s", st, len(c.eng.resumes), c.f.marked("progress")[0].Body)
	}
	quiet("after the stranger's", 2)
	c.f.say("maint", true, "/agentloop guide Return an error; keep the signature.")
	if st := c.serve(t, 1); st.Started != 1 || len(c.eng.resumes) != 1 || c.eng.resumes[0].Guidance != "Return an error; keep the signature." {
		t.Fatalf("a writer's answer: %+v, resumes %+v\n%s", st, c.eng.resumes, c.out)
	}
	if len(c.f.prs) != 1 || !slices.Equal(c.f.labelSet(), []string{"agentloop:done"}) || len(c.f.marked("escalation")) != 1 {
		t.Errorf("after the answer: %d pull requests, labels %v, %d questions", len(c.f.prs), c.f.labelSet(), len(c.f.marked("escalation")))
	}
}

// TestServeTakesAWritersAnswerOverACap: the question a pull request asks
// over a cap is answered through serve as through run --issue: a writer's
// guidance, seen by both of serve's watches at one poll (the issue waits
// for a person, and its run owns a pull request), goes on once with the
// continuation for the failure.
func TestServeTakesAWritersAnswerOverACap(t *testing.T) {
	t.Parallel()
	c := newIssueCase(t, state.StatusSucceeded)
	c.caps = config.IssueCaps{Check: 1, Review: 1, Conflict: 1}
	c.serve(t, 1)
	c.f.check("lint", "failure", "FAIL")
	c.serve(t, 1)
	c.f.check("lint", "failure", "FAIL again")
	if st := c.serve(t, 1); st.Owned != 1 || len(c.f.marked("escalation")) != 1 || len(c.eng.resumes) != 1 {
		t.Fatalf("over the cap: %+v, %d questions, %d resumes\n%s", st, len(c.f.marked("escalation")), len(c.eng.resumes), c.out)
	}
	c.f.say("maint", true, "/agentloop guide Silence the rule for generated files only.")
	opened := c.f.opened
	if st := c.serveParallel(t, 1, 2); st.Started != 1 || st.Errors != 0 || len(c.eng.resumes) != 2 {
		t.Fatalf("a writer's answer: %+v, %d resumes, want one run going on once\n%s", st, len(c.eng.resumes), c.out)
	}
	if !strings.Contains(c.eng.resumes[1].Guidance, "Silence the rule for generated files only.") || c.f.opened != opened+1 || !slices.Equal(c.f.labelSet(), []string{"agentloop:done"}) {
		t.Errorf("a writer's answer: given %q, %d OpenPR calls (was %d), labels %v", c.eng.resumes[1].Guidance, c.f.opened, opened, c.f.labelSet())
	}
}

// TestServeWaitsQuietlyOverACap: while a question over a cap waits and no
// one but agentloop changed the issue, serve's looks at the pull request
// read its state and nothing of the issue (no comment read for an
// answer), and say once that it waits, not at each look; a writer's
// answer then is taken at the next poll.
func TestServeWaitsQuietlyOverACap(t *testing.T) {
	t.Parallel()
	c := newIssueCase(t, state.StatusSucceeded)
	c.overCap(t)
	reads, statuses, edits := c.f.reads, c.f.statuses, c.f.edits
	c.out.Reset()
	if st := c.serve(t, 11); st.Owned != 3 || len(c.eng.resumes) != 1 { // the pull request looked at on polls 1, 6 and 11
		t.Fatalf("waiting: %+v, %d resumes\n%s", st, len(c.eng.resumes), c.out)
	}
	if c.f.statuses != statuses+3 || c.f.edits != edits {
		t.Errorf("waiting: %d reads of the pull request (was %d), %d edits (was %d)", c.f.statuses, statuses, c.f.edits, edits)
	}
	if c.f.reads > reads+1 { // at most once, to tell a person's change from its own in its last write's second
		t.Errorf("waiting: the issue's comments read %d times in 11 polls", c.f.reads-reads)
	}
	if n := strings.Count(c.out.String(), "still waiting for a person on the issue"); n != 1 {
		t.Errorf("the waiting line said %d times, want once:\n%s", n, c.out)
	}
	if n := strings.Count(c.out.String(), "its run is escalated"); n != 1 {
		t.Errorf("its run's status said %d times, want once:\n%s", n, c.out)
	}
	c.f.say("maint", true, "/agentloop guide Silence the rule for generated files only.")
	if st := c.serve(t, 1); st.Started != 1 || len(c.eng.resumes) != 2 || !strings.Contains(c.eng.resumes[1].Guidance, "Silence the rule") {
		t.Errorf("a writer's answer: %+v, %d resumes\n%s", st, len(c.eng.resumes), c.out)
	}
}

// runTracker follows serve's runs through its log: each taken, each
// ended with its bookkeeping done. A run ends on its own goroutine, and
// serve's state of it (under way, put off from the clock as it is then)
// changes there after the run returns: a test that moves its clock or polls
// again at once must wait for that.
type runTracker struct {
	taken atomic.Int32
	ended chan struct{}
	seen  int32
}

func trackRuns() (*runTracker, *slog.Logger) {
	r := &runTracker{ended: make(chan struct{}, 64)}
	return r, slog.New(logTap(func(msg string) {
		switch msg {
		case "serve: taking issue":
			r.taken.Add(1)
		case serveRunFailed, serveRunEnded:
			r.ended <- struct{}{}
		}
	}))
}

// settle waits until every run taken so far has ended.
func (r *runTracker) settle(t *testing.T) {
	t.Helper()
	for ; r.seen < r.taken.Load(); r.seen++ {
		select {
		case <-r.ended:
		case <-time.After(time.Minute):
			t.Fatal("a run taken did not end in a minute")
		}
	}
}

// logTap is a log handler that hands each record's message to tap.
type logTap func(msg string)

func (logTap) Enabled(context.Context, slog.Level) bool        { return true }
func (l logTap) Handle(_ context.Context, r slog.Record) error { l(r.Message); return nil }
func (l logTap) WithAttrs([]slog.Attr) slog.Handler            { return l }
func (l logTap) WithGroup(string) slog.Handler                 { return l }
