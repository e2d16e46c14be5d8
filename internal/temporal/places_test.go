package temporal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/agentloop/agentloop/internal/metrics"
	"github.com/agentloop/agentloop/internal/plan"
)

// TestPlacesGoFirstToStepsTakingThemAgain: with one place held, two steps
// wait for their first and one gave its own back for a while; the place
// given back goes to that one first, then to the others in their order.
func TestPlacesGoFirstToStepsTakingThemAgain(t *testing.T) {
	p := newPlaces(1)
	if err := p.take(t.Context(), false); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 3)
	order := []struct {
		name  string
		again bool
	}{{"first-1", false}, {"first-2", false}, {"again", true}}
	for i, w := range order {
		go func() {
			if err := p.take(t.Context(), w.again); err != nil {
				got <- w.name + ": " + err.Error()
				return
			}
			got <- w.name
		}()
		waitWaiters(t, p, i+1)
	}
	var seen []string
	for range order {
		p.give()
		select {
		case name := <-got:
			seen = append(seen, name)
		case <-time.After(10 * time.Second):
			t.Fatalf("no step took the place given back; took %v", seen)
		}
	}
	if want := "[again first-1 first-2]"; fmt.Sprint(seen) != want {
		t.Errorf("the places went to %v, want %s", seen, want)
	}
	p.give()
	if p.free != 1 {
		t.Errorf("free places %d once every step gave its own back, want 1", p.free)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := p.take(ctx, true); err == nil || p.free != 1 {
		t.Errorf("a step that ended took a free place (%v, %d left)", err, p.free)
	}
}

func placeWaiters(p *places) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.first) + len(p.again)
}

// waitWaiters waits until n steps wait for a place.
func waitWaiters(t *testing.T, p *places, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); placeWaiters(p) != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d steps wait for a place, want %d", placeWaiters(p), n)
		}
	}
}

// TestPlaceGivenAsItsStepIsCancelledGoesToTheNext: a step cancelled while it
// waits leaves the queue, and a place given to it as it was cancelled goes
// on to the next step, not lost.
func TestPlaceGivenAsItsStepIsCancelledGoesToTheNext(t *testing.T) {
	p := newPlaces(1)
	if err := p.take(t.Context(), false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	cancelled := make(chan error, 1)
	go func() { cancelled <- p.take(ctx, false) }()
	waitWaiters(t, p, 1)
	errStop := errors.New("stopped")
	cancel(errStop)
	if err := <-cancelled; !errors.Is(err, errStop) {
		t.Fatalf("a cancelled wait returned %v, want the cause", err)
	}
	if n := placeWaiters(p); n != 0 {
		t.Errorf("%d steps wait after the only one was cancelled", n)
	}
	p.give()
	if err := p.take(t.Context(), false); err != nil {
		t.Fatal(err)
	}
	// Given as it is cancelled: the wait ends with the cancel (it waits
	// for the lock the place is given under), and the place is the next
	// step's.
	hc := &handedCancel{done: make(chan struct{}), err: errStop}
	done := make(chan error, 1)
	go func() { done <- p.take(hc, true) }()
	waitWaiters(t, p, 1)
	p.mu.Lock()
	hc.end() // returns once the wait has seen the cancel, alone
	p.giveLocked()
	p.mu.Unlock()
	if err := <-done; !errors.Is(err, errStop) {
		t.Fatalf("a wait cancelled before its place came returned %v, want the cause", err)
	}
	ok := make(chan error, 1)
	go func() { ok <- p.take(t.Context(), false) }()
	select {
	case err := <-ok:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the place given to a step as it was cancelled was lost")
	}
}

// handedCancel is a context whose end is handed to the one wait on it:
// [handedCancel.end] returns once that wait has received it from Done, so a
// test knows the wait took its cancel branch before anything else happens.
type handedCancel struct {
	done  chan struct{}
	ended atomic.Bool
	err   error
}

func (c *handedCancel) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *handedCancel) Done() <-chan struct{}       { return c.done }
func (c *handedCancel) Value(any) any               { return nil }

func (c *handedCancel) Err() error {
	if c.ended.Load() {
		return c.err
	}
	return nil
}

// end ends the context and waits until a wait receives it.
func (c *handedCancel) end() {
	c.ended.Store(true)
	c.done <- struct{}{}
}

// TestFirstCheckpointsPushGivesThePlaceToAnotherAgent: on a worker with one
// place, a run's first iteration waits for its start checkpoint's push before
// its agent runs; meanwhile its place goes to another run's step, whose
// agent works and ends while the push is still under way.
func TestFirstCheckpointsPushGivesThePlaceToAnotherAgent(t *testing.T) {
	first, other := t.TempDir(), t.TempDir()
	for _, dir := range []string{first, other} {
		gitIn(t, dir, "init", "-q")
		gitIn(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "base")
	}
	reg := metrics.NewRegistry()
	s := &Steps{Log: testLogger(), Remote: "origin", MaxAgents: 1, Metrics: NewMetrics(reg), Plan: func(ctx context.Context, r RunRef) (*plan.Plan, error) {
		p, err := planIn(shAgent(t, `cat >/dev/null; echo done > out.txt`))(ctx, r)
		if err == nil {
			p.Proc.Git.Checkpoint = r.WorkDir == first
		}
		return p, err
	}}
	pushing, release := make(chan struct{}), make(chan struct{})
	var once bool
	s.sharing().push = func(ctx context.Context, _, _ string, _ ...string) error {
		if !once {
			once = true
			close(pushing)
			<-release
		}
		return nil
	}
	step := func(id, dir string) chan error {
		return goStep(s, RunRef{Name: "build-" + id, RunID: id, Procedure: "build", WorkDir: dir})
	}
	firstDone := step("r1", first)
	select {
	case <-pushing:
	case <-time.After(time.Minute):
		t.Fatal("the first checkpoint's push did not start")
	}
	select {
	case err := <-step("r2", other):
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Error("the other run's step did not end while the first checkpoint's push was under way: the place stayed with the step waiting for it")
	}
	var b bytes.Buffer
	if err := reg.Write(t.Context(), &b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"agentloop_agents_running 0\n", "agentloop_steps_waiting 0\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the metrics while the first checkpoint's push is under way, no agent at work, lack %q:\n%s", want, b.String())
		}
	}
	close(release)
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(first, "out.txt")); err != nil {
		t.Errorf("the first run's agent did not run after its push: %v", err)
	}
}

// TestSharedStepsSetAsideForPushes: the shared queue's slots are max, not
// counting the steps set aside while they wait for a push; a slot given back
// or a step back from its push wakes a reservation that waits, or keeps it
// waiting when the others are still at max.
func TestSharedStepsSetAsideForPushes(t *testing.T) {
	q := newSharedSteps(2)
	reserve := func(wait time.Duration) *worker.SlotPermit {
		ctx, cancel := context.WithTimeout(t.Context(), wait)
		defer cancel()
		p, err := q.ReserveSlot(ctx, nil)
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatal(err)
		}
		return p
	}
	for i := range 2 {
		if reserve(time.Minute) == nil {
			t.Fatalf("slot %d of 2 not given", i+1)
		}
	}
	if reserve(100*time.Millisecond) != nil || q.TryReserveSlot(nil) != nil {
		t.Fatal("a third slot given with 2 at work")
	}
	got := make(chan *worker.SlotPermit, 1)
	go func() { got <- reserve(time.Minute) }()
	back := q.setAside() // one of the two waits for a push
	if p := <-got; p == nil {
		t.Fatal("no slot given while a step waited for a push")
	}
	back()
	back() // once only
	if q.TryReserveSlot(nil) != nil {
		t.Fatal("a slot given with 3 held, none set aside")
	}
	q.ReleaseSlot(nil)
	if q.TryReserveSlot(nil) != nil {
		t.Fatal("a slot given with 2 held")
	}
	go func() { got <- reserve(time.Minute) }()
	q.ReleaseSlot(nil)
	if p := <-got; p == nil {
		t.Fatal("the slot given back did not go to the reservation waiting")
	}
	var none *sharedSteps
	none.setAside()() // a worker without a limit counts nothing
}

// TestStepFromTheSharedQueueIsSetAsideWhileItWaitsForPushes: a run's first
// step (from the queue all workers share) holds no slot of that queue while
// it waits for its first checkpoint's push and for its end's, its place
// given away: the worker takes another step there meanwhile.
func TestStepFromTheSharedQueueIsSetAsideWhileItWaitsForPushes(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "base")
	s := &Steps{Log: testLogger(), Remote: "origin", MaxAgents: 1, Queue: "own-queue", shared: newSharedSteps(1), Plan: func(ctx context.Context, r RunRef) (*plan.Plan, error) {
		p, err := planIn(shAgent(t, `cat >/dev/null; echo done > out.txt`))(ctx, r)
		if err == nil {
			p.Proc.Git.Checkpoint = true
		}
		return p, err
	}}
	if s.shared.TryReserveSlot(nil) == nil { // the step's, as the SDK takes it
		t.Fatal("no slot")
	}
	pushing, release := make(chan string), make(chan struct{})
	s.sharing().push = func(ctx context.Context, _, _ string, _ ...string) error {
		pushing <- "push"
		<-release
		return nil
	}
	done := goStep(s, RunRef{Name: "build", RunID: "r1", Procedure: "build", WorkDir: dir})
	for _, which := range []string{"first checkpoint's", "end checkpoint's"} {
		select {
		case <-pushing:
		case err := <-done:
			t.Fatalf("the step ended before its %s push: %v", which, err)
		case <-time.After(time.Minute):
			t.Fatalf("the %s push did not start", which)
		}
		p := s.shared.TryReserveSlot(nil)
		if p == nil {
			t.Errorf("while the step waited for its %s push, the shared queue's one slot stayed its", which)
		} else {
			s.shared.ReleaseSlot(nil)
		}
		release <- struct{}{}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s.shared.TryReserveSlot(nil) != nil {
		t.Error("a slot given with the step's held and no step waiting for a push")
	}
}
