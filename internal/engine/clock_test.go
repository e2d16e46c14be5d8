package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
)

// The time budget's clock stands still while the agent pauses for its
// account's usage limit: an iteration with 1 s of budget left that pauses
// 2 s is not stopped by the budget; the clock runs again after the pause and
// ends the iteration when its second is spent. Without the pause (a rate
// limit's wait, which is billed) the same wait runs the budget out.
func TestBudgetClockPausesForAUsageLimit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		result evidence.AgentResult // the first run's; the second succeeds
		ranOut bool                 // the budget ends the wait
	}{
		{"usage limit: paused, not billed", evidence.AgentResult{Agent: "claude", ExitCode: 1, RateLimited: true, Reason: "usage limit"}, false},
		{"rate limit: a billed wait", evidence.AgentResult{Agent: "claude", ExitCode: 1, RateLimited: true, Reason: "429"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			const left, wait = time.Second, 2 * time.Second
			var slept []time.Duration
			l := newLocal(nil, RateLimitPolicy{MaxWait: time.Hour, Backoff: func(int) time.Duration { return wait }}, &slept)
			if tt.result.Reason == "usage limit" {
				tt.result.ResetAt = l.Now().Add(wait)
			}
			l.Agent = &scriptedAgent{results: []evidence.AgentResult{tt.result, {Agent: "claude", ExitCode: 0}}}
			l.Sleep = func(ctx context.Context, d time.Duration) error { // a real wait
				select {
				case <-time.After(d):
					return nil
				case <-ctx.Done():
					return context.Cause(ctx)
				}
			}
			ctx, clock, stop := withBudgetClock(t.Context(), left)
			defer stop()
			l.clock = clock
			_, w, err := l.runAgent(ctx, loop.AgentRequest{})
			if tt.ranOut {
				if !errors.Is(err, loop.ErrTimeRanOut) {
					t.Fatalf("runAgent after a billed wait of %s with %s left: %v, want the time budget run out", wait, left, err)
				}
				return
			}
			if err != nil || w.paused != wait {
				t.Fatalf("runAgent = %+v, %v: want the agent run again after an unbilled pause of %s", w, err, wait)
			}
			select {
			case <-ctx.Done():
				if !errors.Is(context.Cause(ctx), loop.ErrTimeRanOut) {
					t.Fatalf("ended by %v, want the time budget", context.Cause(ctx))
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the clock did not run again after the pause: the budget never ran out")
			}
		})
	}
}
