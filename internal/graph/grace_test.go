package graph

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestFinishing: a signal (the parent's cancellation) does not cut the work
// short; its grace after the signal does, with a GraceError as the cause.
// Without a signal the grace does not count.
func TestFinishing(t *testing.T) {
	t.Parallel()
	const grace = 50 * time.Millisecond
	t.Run("signal", func(t *testing.T) {
		t.Parallel()
		parent, stop := context.WithCancel(t.Context())
		fctx, cancel := Finishing(parent, grace)
		defer cancel()
		stop()
		if fctx.Err() != nil {
			t.Fatal("the signal cut the work at once")
		}
		select {
		case <-fctx.Done():
		case <-time.After(time.Minute):
			t.Fatal("the work went on a minute after the signal, with a grace of 50ms")
		}
		if ge, ok := errors.AsType[*GraceError](context.Cause(fctx)); !ok || ge.Grace != grace {
			t.Errorf("cause %v, want the grace of %v ran out", context.Cause(fctx), grace)
		}
	})
	t.Run("no signal", func(t *testing.T) {
		t.Parallel()
		fctx, cancel := Finishing(t.Context(), grace)
		time.Sleep(4 * grace)
		if fctx.Err() != nil {
			t.Errorf("cut without a signal: %v", context.Cause(fctx))
		}
		cancel()
		if !errors.Is(fctx.Err(), context.Canceled) {
			t.Errorf("after cancel: %v, want cancelled", fctx.Err())
		}
	})
}
