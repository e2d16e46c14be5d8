package temporal

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// TestHeartbeatsGoOnUnanswered: heartbeats whose answers do not come are
// not waited for: a few go out at once, and the SDK is asked to check (and
// cancel) only once none has been answered for twice the timeout.
func TestHeartbeatsGoOnUnanswered(t *testing.T) {
	const timeout = 300 * time.Millisecond
	began := time.Now()
	calls := make(chan struct{}, 10)
	checked := make(chan time.Duration, 10)
	release := make(chan struct{})
	_, stop := heartbeats(t.Context(), timeout, func(ctx context.Context) error {
		calls <- struct{}{}
		<-release // not answered while the test runs
		return ctx.Err()
	}, func() {
		select {
		case checked <- time.Since(began):
		default:
		}
	})
	defer stop()
	defer close(release)
	for i := range 3 { // a third of the timeout apart, each given the timeout
		select {
		case <-calls:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d heartbeats under way, want 3: each waited for the last one's answer", i)
		}
	}
	select {
	case d := <-checked:
		if d < 2*timeout {
			t.Errorf("the SDK was asked to check %s after the start, before twice the timeout (%s)", d, 2*timeout)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the SDK was never asked to check a step whose heartbeats went unanswered")
	}
}

// TestHeartbeatsStopWhenTheServerSaysSo: once the server answers that the
// attempt is over, the SDK hears it (it cancels the activity) and no more
// heartbeats go; slow answers, or failures that are not the server's word,
// stop nothing.
func TestHeartbeatsStopWhenTheServerSaysSo(t *testing.T) {
	const timeout = 300 * time.Millisecond
	var n atomic.Int32
	var over atomic.Bool
	answers := []error{nil, serviceerror.NewDeadlineExceeded("slow"), serviceerror.NewUnavailable("down"), serviceerror.NewNotFound("attempt mismatch")}
	checked := make(chan struct{}, 10)
	atWork, stop := heartbeats(t.Context(), timeout, func(ctx context.Context) error {
		if over.Load() {
			t.Error("a heartbeat was sent after the server said the attempt is over")
		}
		i := int(n.Add(1)) - 1
		time.Sleep(timeout / 2) // answered late, before the timeout
		return answers[min(i, len(answers)-1)]
	}, func() {
		over.Store(true)
		select {
		case checked <- struct{}{}:
		default:
		}
	})
	atWork() // a third of the timeout apart: each answer comes after the next heartbeat went
	defer stop()
	select {
	case <-checked:
	case <-time.After(10 * time.Second):
		t.Fatal("the SDK never heard that the attempt is over")
	}
	if got := n.Load(); got < int32(len(answers)) {
		t.Errorf("%d heartbeats sent before the server's word, want %d: a slow or failed one stopped them", got, len(answers))
	}
	time.Sleep(4 * timeout) // a heartbeat sent after the end fails the test
	if len(checked) != 0 {
		t.Error("the SDK was asked again after the server's word")
	}
}

// TestHeartbeatsLessOftenWhileWaiting: a step waiting for a place on its
// worker sends a heartbeat every half of the timeout; at work, every third.
func TestHeartbeatsLessOftenWhileWaiting(t *testing.T) {
	const timeout = 1500 * time.Millisecond
	calls := make(chan time.Time, 100)
	atWork, stop := heartbeats(t.Context(), timeout, func(context.Context) error {
		calls <- time.Now()
		return nil
	}, func() {})
	defer stop()
	gaps := func(n int) []time.Duration {
		t.Helper()
		var ds []time.Duration
		last := <-calls
		for range n {
			select {
			case c := <-calls:
				ds = append(ds, c.Sub(last))
				last = c
			case <-time.After(10 * timeout):
				t.Fatal("no heartbeat for ten times the timeout")
			}
		}
		return ds
	}
	// A ticker drops the ticks it cannot deliver: a loaded machine makes the
	// gaps longer, never shorter.
	for _, d := range gaps(3) {
		if d < timeout*45/100 {
			t.Errorf("heartbeats %s apart while waiting, want half of the timeout (%s)", d, timeout/2)
		}
	}
	atWork()
	for len(calls) > 0 {
		<-calls
	}
	ds := gaps(5)
	slices.Sort(ds)
	if d := ds[len(ds)/2]; d > timeout*42/100 {
		t.Errorf("heartbeats at work %v apart (median %s), want a third of the timeout (%s)", ds, d, timeout/3)
	}
}

func TestAttemptOver(t *testing.T) {
	for _, tc := range []struct {
		err  error
		over bool
	}{
		{temporal.NewCanceledError(), true},
		{serviceerror.NewNotFound("invalid activityID or activity already timed out or invoking workflow is completed"), true},
		{serviceerror.NewNamespaceNotActive("default", "a", "b"), true},
		{activity.ErrActivityPaused, true},
		{activity.ErrActivityReset, true},
		{serviceerror.NewDeadlineExceeded("context deadline exceeded"), false},
		{serviceerror.NewUnavailable("connection refused"), false},
		{serviceerror.NewResourceExhausted(0, "busy"), false},
		{context.DeadlineExceeded, false},
		{errors.New("anything else"), false},
	} {
		if got := attemptOver(tc.err); got != tc.over {
			t.Errorf("attemptOver(%T %v) = %v, want %v", tc.err, tc.err, got, tc.over)
		}
	}
}
