package temporal

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/agentloop/agentloop/internal/state"
)

// A step's heartbeat is sent by agentloop itself, not through the SDK's
// [activity.RecordHeartbeat], whose two habits cost a live worker its steps
// when it or the server is loaded (go.temporal.io/sdk v1.37.0,
// internal/internal_task_handlers.go):
//
//   - It sends at most one heartbeat per window of 0.8 of the heartbeat
//     timeout, the window starting once the last call has returned
//     (getHeartbeatThrottleInterval, temporalInvoker.Heartbeat): the server
//     hears from the step every 0.8 of the timeout plus a call's time, so a
//     call slower than a fifth of the timeout (0.6 s of a 3 s one) makes it
//     miss the heartbeat, and it runs the step again, however often the
//     activity calls.
//   - A call is given half of that window, at least 1 s and at most 10 s
//     (internalHeartBeat's recordTimeout, newGRPCContext), and any failure
//     of it but the server's own answers cancels the activity
//     (internalHeartBeat: a serviceerror has no gRPC status, so that
//     retry.IsRetryable reads a DeadlineExceeded as Unknown, retryable): a
//     heartbeat answered after 0.4 of the timeout stops the step on a worker
//     the server still holds it on.
//
// Here a heartbeat goes every third of the timeout whether or not the last
// one was answered (a few at most under way), and each may take as long as
// the timeout before it is given up: the server hears from a live worker
// every third of the timeout, however slow its answers. A step that waits
// for a place on its worker (--max-agents), its agent not started, sends one
// every half of the timeout: a worker holding a thousand of them sends a
// third fewer, each a write on the server, and a missed one costs only the
// wait, the step given to the worker again. A slow or failed
// heartbeat stops nothing. The step stops when the server answers that it
// is over (cancelled, run again after a missed heartbeat, paused or reset),
// or when it has not answered for twice the timeout (the worker is cut off,
// and the server, if it is up, has given the step to another): the SDK is
// then asked to send a heartbeat of its own, and it cancels the activity
// with the server's answer, or with its failure to get one. The step of a
// worker that is gone sends nothing, and the server runs it again once the
// timeout has passed, as before.

// beatsUnderWay is how many heartbeats of a step may be under way at once:
// one sent each third of the timeout, each given up after the timeout.
const beatsUnderWay = 3

// heartbeat tells the server the activity's worker is alive until stop is
// called, less often until atWork is called; the activity's context is
// cancelled, by the SDK, once the server says the attempt is over or has not
// answered for twice the timeout. Each heartbeat carries what live says the
// activity is doing then (nil, or no phase: nothing), as the details the
// server keeps of its last heartbeat ([Query] reads them: [View.Live]).
func heartbeat(ctx context.Context, timeout time.Duration, live func() state.LiveStatus) (atWork, stop func()) {
	if timeout <= 0 || !activity.IsActivity(ctx) {
		return func() {}, func() {}
	}
	details := func() []any {
		if live == nil {
			return nil
		}
		if ls := live(); ls.Phase != "" {
			return []any{ls}
		}
		return nil
	}
	beat := func(ctx context.Context) error {
		return activity.GetClient(ctx).RecordActivityHeartbeat(ctx, activity.GetInfo(ctx).TaskToken, details()...)
	}
	return heartbeats(ctx, timeout, beat, func() { activity.RecordHeartbeat(ctx, details()...) })
}

// heartbeats calls beat every half of timeout until atWork is called, then
// every third, each call given the timeout, until stop is called, and hands
// over to sdk (which cancels the activity if the server says so or cannot be
// reached) once a call's answer says the attempt is over, or none has been
// answered for twice the timeout.
func heartbeats(ctx context.Context, timeout time.Duration, beat func(context.Context) error, sdk func()) (atWork, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	answers := make(chan error, beatsUnderWay) // never blocks: as many as may be under way
	working := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(max(timeout/2, 100*time.Millisecond))
		defer t.Stop()
		heard, underWay := time.Now(), 0
		for {
			select {
			case <-ctx.Done():
				return
			case <-working:
				working = nil
				t.Reset(max(timeout/3, 100*time.Millisecond))
			case err := <-answers:
				underWay--
				switch {
				case err == nil:
					heard = time.Now()
				case attemptOver(err):
					sdk()
					return
				}
			case <-t.C:
				if time.Since(heard) > 2*timeout {
					sdk()
					heard = time.Now() // asked again after another twice the timeout, if the activity goes on
				}
				if underWay < beatsUnderWay {
					underWay++
					go func() {
						// The SDK gives the call half of its context's time.
						c, cancel := context.WithTimeout(ctx, 2*timeout)
						defer cancel()
						answers <- beat(c)
					}()
				}
			}
		}
	}()
	return sync.OnceFunc(func() { close(working) }), func() { cancel(); <-done }
}

// attemptOver reports whether a heartbeat's error is the server's answer
// that the activity's attempt is over: cancelled, unknown to it (run again
// after a missed heartbeat, or its workflow ended), paused or reset.
func attemptOver(err error) bool {
	if _, ok := errors.AsType[*temporal.CanceledError](err); ok {
		return true
	}
	if _, ok := errors.AsType[*serviceerror.NotFound](err); ok {
		return true
	}
	if _, ok := errors.AsType[*serviceerror.NamespaceNotActive](err); ok {
		return true
	}
	if _, ok := errors.AsType[*serviceerror.NamespaceNotFound](err); ok {
		return true
	}
	return errors.Is(err, activity.ErrActivityPaused) || errors.Is(err, activity.ErrActivityReset)
}
