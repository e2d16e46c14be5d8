package temporal

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"
)

// The attempts of a run's steps take turns on a worker. The workflow runs
// one step of a run at a time, so that two steps of one run under way on one
// worker always mean that the server gave up on the older one (its heartbeat
// was missed: the worker was loaded, or cut off for a while) and started
// another, which came to the same worker, where the run's engine and work
// tree are. The newer attempt stops the older one, waits until it has ended
// (its agent's process group with it), and only then restores the work tree
// and runs; the older one reports and shares nothing after it was stopped:
// the server discarded it already.

// errSuperseded is the cause of a step attempt stopped by a newer attempt of
// its run's step on the same worker.
var errSuperseded = errors.New("step attempt superseded: the server started the run's step again on this worker, and the newer attempt runs instead")

// turn is a step attempt of a run under way on this worker.
type turn struct {
	started time.Time // when the server started the attempt
	attempt int32
	stop    context.CancelCauseFunc
	done    chan struct{} // closed once the attempt has ended
}

// newer reports whether t was started by the server after o. Attempts of
// one run's steps start one after another, on the server's clock.
func (t *turn) newer(o *turn) bool {
	if !t.started.Equal(o.started) {
		return t.started.After(o.started)
	}
	return t.attempt > o.attempt
}

// takeTurn makes the step attempt of ctx the run's on this worker: an older
// attempt of the run under way here is stopped, and takeTurn returns once it
// has ended. The attempt's context is cancelled with [errSuperseded] when a
// newer one takes its turn; end, called once the attempt is over, gives the
// turn up. An attempt older than the one under way here is superseded at once.
func (s *Steps) takeTurn(ctx context.Context, runID string) (_ context.Context, end func(), err error) {
	t := &turn{done: make(chan struct{})}
	if activity.IsActivity(ctx) {
		info := activity.GetInfo(ctx)
		t.started, t.attempt = info.StartedTime, info.Attempt
	}
	ctx, t.stop = context.WithCancelCause(ctx)
	s.mu.Lock()
	old := s.turns[runID]
	if old != nil && !t.newer(old) {
		s.mu.Unlock()
		t.stop(nil)
		return nil, nil, errSuperseded
	}
	if s.turns == nil {
		s.turns = map[string]*turn{}
	}
	s.turns[runID] = t
	s.mu.Unlock()
	end = func() {
		s.mu.Lock()
		if s.turns[runID] == t {
			delete(s.turns, runID)
		}
		s.mu.Unlock()
		t.stop(nil)
		close(t.done)
	}
	if old != nil {
		s.Log.Warn("a newer attempt of the run's step came to this worker: the older one still under way here is stopped first", "run", runID, "attempt", t.attempt)
		old.stop(errSuperseded)
		// Waited for even when this attempt is stopped meanwhile: the
		// attempt after it waits for this one, and so for the older too.
		<-old.done
		if ctx.Err() != nil {
			end()
			return nil, nil, context.Cause(ctx)
		}
	}
	return ctx, end, nil
}

// superseded reports whether the step attempt of ctx was stopped for a newer
// one ([Steps.takeTurn]).
func superseded(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errSuperseded)
}
