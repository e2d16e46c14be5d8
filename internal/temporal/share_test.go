package temporal

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/metrics"
	"github.com/agentloop/agentloop/internal/plan"
)

// fakePushes records the pushes a sharer makes and holds each until the test
// lets it go.
type fakePushes struct {
	mu      sync.Mutex
	pushed  [][]string    // the prefixes of each push, in order
	started chan struct{} // a value per push started
	release chan error    // a push ends with the value sent
}

func newFakePushes() *fakePushes {
	return &fakePushes{started: make(chan struct{}, 100), release: make(chan error)}
}

func (f *fakePushes) push(ctx context.Context, dir, remote string, prefixes ...string) error {
	f.mu.Lock()
	f.pushed = append(f.pushed, slices.Sorted(slices.Values(prefixes))) // in any order
	f.mu.Unlock()
	f.started <- struct{}{}
	select {
	case err := <-f.release:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *fakePushes) got() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.pushed)
}

// TestSharerTakesTurns: the asks made while a push is under way go together
// in the next push, each waiting ask returns with the push that carried its
// refs, an ask that does not wait goes with the next push, and a waiting ask
// whose step ends first returns at once without stopping the push the others
// wait for.
func TestSharerTakesTurns(t *testing.T) {
	f := newFakePushes()
	reg := metrics.NewRegistry()
	s := &sharer{push: f.push, metrics: NewMetrics(reg)}
	ctx := t.Context()

	first := make(chan error, 1)
	go func() { first <- s.share(ctx, "/clone", "origin", "refs/agentloop/a/1/", shareEnd) }()
	<-f.started // the first push is under way: a, alone

	// The start checkpoint of run b, not waited for, and the ends of runs
	// c and d (d twice), while it is under way.
	if err := s.share(ctx, "/clone", "origin", "refs/agentloop/b/2/", shareLater); err != nil {
		t.Fatalf("an ask that does not wait: %v", err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for _, p := range []string{"refs/agentloop/c/3/", "refs/agentloop/d/4/", "refs/agentloop/d/4/"} {
		wg.Go(func() { errs <- s.share(ctx, "/clone", "origin", p, shareEnd) })
	}
	// A step whose context ends while it waits.
	gone, cancel := context.WithCancelCause(ctx)
	goneErr := make(chan error, 1)
	go func() { goneErr <- s.share(gone, "/clone", "origin", "refs/agentloop/e/5/", shareEnd) }()
	waitFor(t, 10*time.Second, "the asks to join the next push", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.next["/clone"] != nil && len(s.next["/clone"].prefixes) == 4
	})
	stopped := errors.New("the step was cancelled")
	cancel(stopped)
	if err := <-goneErr; !errors.Is(err, stopped) {
		t.Errorf("an ask whose step ended: %v, want its cause", err)
	}
	select {
	case err := <-first:
		t.Fatalf("the first ask returned before its push ended: %v", err)
	case <-time.After(50 * time.Millisecond):
	}

	f.release <- nil // the first push ends
	if err := <-first; err != nil {
		t.Errorf("first ask: %v", err)
	}
	<-f.started // the second: every ask made meanwhile, in one push
	broken := errors.New("remote: refused")
	f.release <- broken
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, broken) {
			t.Errorf("an ask carried by the second push returned %v, want its error", err)
		}
	}
	want := [][]string{{"refs/agentloop/a/1/"}, {"refs/agentloop/b/2/", "refs/agentloop/c/3/", "refs/agentloop/d/4/", "refs/agentloop/e/5/"}}
	if got := f.got(); len(got) != 2 || !slices.Equal(got[0], want[0]) || !slices.Equal(got[1], want[1]) {
		t.Errorf("pushes %q, want %q", got, want)
	}

	// Nothing under way: the next ask starts a push of its own at once.
	done := make(chan error, 1)
	go func() { done <- s.share(ctx, "/clone", "origin", "refs/agentloop/a/1/", shareEnd) }()
	<-f.started
	f.release <- nil
	if err := <-done; err != nil {
		t.Errorf("a later ask: %v", err)
	}
	if n := len(f.got()); n != 3 {
		t.Errorf("%d pushes, want 3", n)
	}
	var b bytes.Buffer
	if err := reg.Write(ctx, &b); err != nil {
		t.Fatal(err)
	}
	got, err := metrics.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		labels metrics.Labels
		want   float64
	}{
		{"agentloop_checkpoint_pushes_total", metrics.Labels{"result": "ok"}, 2},
		{"agentloop_checkpoint_pushes_total", metrics.Labels{"result": "failed"}, 1},
		{"agentloop_checkpoint_shares_total", nil, 7}, // a; b, c, d twice, e; a
	} {
		if v := got.Sum(c.name, c.labels); v != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, v, c.want)
		}
	}
}

// TestSharerClonesApart: the pushes of two clones do not wait for each other.
func TestSharerClonesApart(t *testing.T) {
	f := newFakePushes()
	s := &sharer{push: f.push}
	ctx := t.Context()
	a := make(chan error, 1)
	go func() { a <- s.share(ctx, "/a", "origin", "refs/agentloop/x/1/", shareEnd) }()
	<-f.started
	b := make(chan error, 1)
	go func() { b <- s.share(ctx, "/b", "origin", "refs/agentloop/y/2/", shareEnd) }()
	select {
	case <-f.started: // b's push started while a's is under way
	case <-time.After(10 * time.Second):
		t.Fatal("the second clone's push waited for the first's")
	}
	f.release <- nil
	f.release <- nil
	if err := <-a; err != nil {
		t.Error(err)
	}
	if err := <-b; err != nil {
		t.Error(err)
	}
}

// TestSharerLingers: while other steps of the worker are at work, a push
// waits for their asks, until an ask that a step's agent waits for comes;
// with none at work a push starts at once.
func TestSharerLingers(t *testing.T) {
	f := newFakePushes()
	var atWork atomic.Bool
	atWork.Store(true)
	s := &sharer{push: f.push, atWork: func(string) bool { return atWork.Load() }, linger: time.Hour}
	ctx := t.Context()
	errs := make(chan error, 3)
	go func() { errs <- s.share(ctx, "/clone", "origin", "refs/agentloop/a/1/", shareEnd) }()
	if err := s.share(ctx, "/clone", "origin", "refs/agentloop/b/2/", shareLater); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.started:
		t.Fatal("a push started while steps were at work, before any ask had to be pushed at once")
	case <-time.After(200 * time.Millisecond):
	}
	go func() { errs <- s.share(ctx, "/clone", "origin", "refs/agentloop/c/3/", shareNow) }()
	<-f.started
	f.release <- nil
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got, want := f.got(), [][]string{{"refs/agentloop/a/1/", "refs/agentloop/b/2/", "refs/agentloop/c/3/"}}; len(got) != 1 || !slices.Equal(got[0], want[0]) {
		t.Errorf("pushes %q, want %q", got, want)
	}

	atWork.Store(false)
	go func() { errs <- s.share(ctx, "/clone", "origin", "refs/agentloop/d/4/", shareEnd) }()
	select {
	case <-f.started:
	case <-time.After(10 * time.Second):
		t.Fatal("with no step at work, a push waited")
	}
	f.release <- nil
	if err := <-errs; err != nil {
		t.Error(err)
	}
}

// TestStepEndPushLingersOnlyForItsClone: a step's end push waits for the
// steps at work in its own clone, whose asks could go with it, not for those
// at work in another (a graph's tasks, each in its worktree): their pushes
// are the other clone's. A step of run quick ends in one work tree while run
// slow's agent is at work in another; quick's end push starts at once.
func TestStepEndPushLingersOnlyForItsClone(t *testing.T) {
	hold := t.TempDir()
	slow := shAgent(t, `cat >/dev/null; touch "$HOLD/started"; while [ ! -e "$HOLD/go" ]; do sleep 0.05; done; echo slow > slow.txt`)
	slow.Env = map[string]string{"HOLD": hold}
	quick := shAgent(t, `cat >/dev/null; echo quick > quick.txt`)
	s := &Steps{Log: testLogger(), Remote: "origin", Plan: func(ctx context.Context, r RunRef) (*plan.Plan, error) {
		a := quick
		if r.Name == "slow" {
			a = slow
		}
		p, err := planIn(a)(ctx, r)
		if err == nil {
			p.Proc.Git.Checkpoint = true
		}
		return p, err
	}}
	var mu sync.Mutex
	pushed := map[string]int{} // by work tree
	sh := s.sharing()
	sh.linger = time.Hour // a push that lingers does not start during the test
	sh.push = func(_ context.Context, dir, _ string, _ ...string) error {
		mu.Lock()
		defer mu.Unlock()
		pushed[dir]++
		return nil
	}
	pushes := func(dir string) int {
		mu.Lock()
		defer mu.Unlock()
		return pushed[dir]
	}
	step := func(name, dir string) chan error {
		gitIn(t, dir, "init", "-q")
		gitIn(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "base")
		return goStep(s, RunRef{Name: name, RunID: name, Procedure: "build", WorkDir: dir})
	}
	slowDir, quickDir := t.TempDir(), t.TempDir()
	slowDone := step("slow", slowDir)
	defer func() {
		_ = os.WriteFile(filepath.Join(hold, "go"), nil, 0o644)
		if err := <-slowDone; err != nil {
			t.Error(err)
		}
	}()
	waitFor(t, time.Minute, "slow's agent to be at work", func() bool {
		_, err := os.Stat(filepath.Join(hold, "started"))
		return err == nil
	})
	select {
	case err := <-step("quick", quickDir):
		if err != nil {
			t.Fatal(err)
		}
		if n := pushes(quickDir); n < 2 {
			t.Errorf("quick's work tree pushed %d times, want its start and its end", n)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("quick's step did not end: its end push waits for slow's, at work in another work tree")
		_ = sh.share(t.Context(), quickDir, "origin", "hurry", shareNow) // let it end
	}
}

// TestStepHandedBackWhileItsEndPushWaits: a step whose agent ended but whose
// end checkpoint is still waiting for its push when its worker's drain time
// is over is handed back, as a step whose agent is still at work: the worker
// is going, and the push with it, so the checkpoint a result would name
// might never reach the remote another worker rebuilds the run from.
func TestStepHandedBackWhileItsEndPushWaits(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "base")
	var logged bytes.Buffer
	var logMu sync.Mutex
	s := &Steps{Log: slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logged}, &slog.HandlerOptions{Level: slog.LevelWarn})), Remote: "origin", drain: 100 * time.Millisecond, Plan: func(ctx context.Context, r RunRef) (*plan.Plan, error) {
		p, err := planIn(shAgent(t, `cat >/dev/null; echo done > out.txt`))(ctx, r)
		if err == nil {
			p.Proc.Git.Checkpoint = true
		}
		return p, err
	}}
	var pushes atomic.Int32
	ending, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	s.sharing().push = func(ctx context.Context, _, _ string, _ ...string) error {
		if pushes.Add(1) == 1 {
			return nil // the run's first checkpoint, before its agent
		}
		close(ending)
		<-release // the end push: under way until the test ends
		return nil
	}
	stopping := make(chan struct{})
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.SetWorkerStopChannel(stopping)
	env.RegisterActivityWithOptions(s.Step, activity.RegisterOptions{Name: ActivityStep})
	done := make(chan error, 1)
	go func() {
		_, err := env.ExecuteActivity(ActivityStep, StepInput{
			Run:     RunRef{Name: "build", RunID: "r1", Procedure: "build", WorkDir: dir},
			Request: loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Attempt: 1, Timeout: time.Minute},
		})
		done <- err
	}()
	select {
	case <-ending:
	case err := <-done:
		t.Fatalf("the step ended before its end push: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the step's end push did not start")
	}
	close(stopping) // the worker drains
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), errHandedBack.Error()) {
			t.Errorf("a step stopped by the drain while its end push waited: %v, want it handed back", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the drain did not stop the step waiting for its end push")
	}
	logMu.Lock()
	defer logMu.Unlock()
	if strings.Contains(logged.String(), "could not be shared") {
		t.Errorf("a step handed back while its push went on warned that its checkpoints could not be shared:\n%s", logged.String())
	}
}

// lockedWriter writes to w under mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestSharerPacksTheClonesRefsBetweenPushes: once a clone's pushes carried
// packEvery asks since the last pack, its refs are packed after the push,
// before the next; another clone's count is its own; a pack that fails is
// told.
func TestSharerPacksTheClonesRefsBetweenPushes(t *testing.T) {
	var mu sync.Mutex
	var events []string
	record := func(e string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}
	var logged bytes.Buffer
	var logMu sync.Mutex
	s := &sharer{
		packEvery: 3,
		log:       slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logged}, nil)),
		push: func(_ context.Context, dir, _ string, prefixes ...string) error {
			record("push " + dir + " " + strings.Join(prefixes, " "))
			return nil
		},
		pack: func(_ context.Context, dir string) error {
			record("pack " + dir)
			if dir == "/b" {
				return errors.New("packed-refs.lock exists")
			}
			return nil
		},
	}
	ctx := t.Context()
	for _, ask := range []struct{ dir, prefix string }{
		{"/a", "refs/agentloop/x/1/"}, {"/a", "refs/agentloop/x/1/"}, {"/b", "refs/agentloop/y/2/"},
		{"/a", "refs/agentloop/x/1/"}, {"/a", "refs/agentloop/z/3/"}, {"/b", "refs/agentloop/y/2/"}, {"/b", "refs/agentloop/y/2/"},
	} {
		if err := s.share(ctx, ask.dir, "origin", ask.prefix, shareNow); err != nil {
			t.Fatal(err)
		}
	}
	// The pack follows the push that carried the third ask; a push waits
	// for the pack before it (the clone's turn), not the step that asked.
	waitFor(t, 10*time.Second, "the second clone's pack, failed, to be told", func() bool {
		logMu.Lock()
		defer logMu.Unlock()
		return strings.Contains(logged.String(), "could not be packed")
	})
	mu.Lock()
	got := strings.Join(events, "\n")
	mu.Unlock()
	want := strings.Join([]string{
		"push /a refs/agentloop/x/1/", "push /a refs/agentloop/x/1/", "push /b refs/agentloop/y/2/",
		"push /a refs/agentloop/x/1/", "pack /a", "push /a refs/agentloop/z/3/",
		"push /b refs/agentloop/y/2/", "push /b refs/agentloop/y/2/", "pack /b",
	}, "\n")
	if got != want {
		t.Errorf("pushes and packs:\n%s\nwant:\n%s", got, want)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(logged.String(), "packed-refs.lock exists") || !strings.Contains(logged.String(), "dir=/b") {
		t.Errorf("a pack that failed was told without its clone or its error: %q", logged.String())
	}
}

// TestSharerRestsBetweenPushesWhileStepsAreAtWork: while steps are at work in
// a clone, its next push starts no sooner than twice the last push's length
// after it ended ([sharePace]), an ask a step's agent waits for included; a
// clone with no step at work pushes at once.
func TestSharerRestsBetweenPushesWhileStepsAreAtWork(t *testing.T) {
	var mu sync.Mutex
	var starts []time.Time
	started := make(chan struct{}, 10)
	release := make(chan struct{})
	push := func(ctx context.Context, dir, remote string, prefixes ...string) error {
		mu.Lock()
		starts = append(starts, time.Now())
		mu.Unlock()
		started <- struct{}{}
		<-release
		return nil
	}
	var atWork atomic.Bool
	atWork.Store(true)
	s := &sharer{push: push, atWork: func(string) bool { return atWork.Load() }, linger: time.Nanosecond}
	ctx := t.Context()
	errs := make(chan error, 2)
	go func() { errs <- s.share(ctx, "/clone", "origin", "refs/agentloop/a/1/", shareNow) }()
	<-started
	time.Sleep(300 * time.Millisecond) // the push's length
	go func() { errs <- s.share(ctx, "/clone", "origin", "refs/agentloop/b/2/", shareNow) }()
	ended := time.Now() // at the latest: the push returns after its release
	release <- struct{}{}
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	<-started
	release <- struct{}{}
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	took, rested := ended.Sub(starts[0]), starts[1].Sub(ended)
	mu.Unlock()
	if rested < 2*took {
		t.Errorf("the second push started %v after the first, which took %v, ended: want at least %v", rested, took, 2*took)
	}

	// No step at work: a clone's pushes rest a million times their length
	// between them, yet the next starts at once.
	s = &sharer{push: push, atWork: func(string) bool { return false }, pace: 1e6}
	for _, p := range []string{"refs/agentloop/c/3/", "refs/agentloop/d/4/"} {
		go func() { errs <- s.share(ctx, "/clone", "origin", p, shareEnd) }()
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatal("with no step at work, a push rested")
		}
		time.Sleep(10 * time.Millisecond)
		release <- struct{}{}
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestSharerRestIsBoundedAndNoneAfterAFailure: a push's rest is at most
// restMax, and a push that failed has none.
func TestSharerRestIsBoundedAndNoneAfterAFailure(t *testing.T) {
	started := make(chan time.Time, 10)
	results := make(chan error)
	push := func(ctx context.Context, dir, remote string, prefixes ...string) error {
		started <- time.Now()
		return <-results
	}
	ctx := t.Context()
	errs := make(chan error, 1)
	for _, c := range []struct {
		name    string
		restMax time.Duration
		first   error
		min     time.Duration // the least rest
	}{
		{"bounded", 300 * time.Millisecond, nil, 300 * time.Millisecond},
		{"after a failure", time.Hour, errors.New("remote hung up"), 0},
	} {
		s := &sharer{push: push, atWork: func(string) bool { return true }, linger: time.Nanosecond, pace: 1e6, restMax: c.restMax}
		go func() { errs <- s.share(ctx, "/clone", "origin", "refs/agentloop/a/1/", shareNow) }()
		<-started
		time.Sleep(10 * time.Millisecond)
		ended := time.Now() // at the latest: the push returns after its result
		results <- c.first
		if err := <-errs; !errors.Is(err, c.first) {
			t.Fatalf("%s: %v, want %v", c.name, err, c.first)
		}
		go func() { errs <- s.share(ctx, "/clone", "origin", "refs/agentloop/b/2/", shareNow) }()
		select {
		case at := <-started:
			if rested := at.Sub(ended); rested < c.min {
				t.Errorf("%s: the next push started %v after, want at least %v", c.name, rested, c.min)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the next push did not start (a rest of a million times 10 ms)", c.name)
		}
		results <- nil
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
