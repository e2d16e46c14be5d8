package engine

import (
	"context"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/loop"
)

// budgetClock ends an iteration when the run's time budget runs out
// ([loop.ErrTimeRanOut]), as a deadline would, except that it stands still
// while the iteration waits for an account's usage limit to reset: that
// pause is not billed, so it does not spend the run's time.
type budgetClock struct {
	mu       sync.Mutex
	t        *time.Timer
	deadline time.Time     // while running
	left     time.Duration // while paused
	paused   bool
}

// withBudgetClock returns ctx ended with [loop.ErrTimeRanOut] after left of
// unpaused time, and the clock to pause it; stop releases it.
func withBudgetClock(ctx context.Context, left time.Duration) (_ context.Context, _ *budgetClock, stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	c := &budgetClock{deadline: time.Now().Add(left)}
	c.t = time.AfterFunc(left, func() { cancel(loop.ErrTimeRanOut) })
	return ctx, c, func() {
		c.t.Stop()
		cancel(nil)
	}
}

// pause stops the clock until the returned function is called. A nil clock
// (no time budget) does nothing.
func (c *budgetClock) pause() (resume func()) {
	if c == nil {
		return func() {}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused || !c.t.Stop() {
		return func() {} // already paused, or the budget ran out already
	}
	c.paused, c.left = true, max(time.Until(c.deadline), 0)
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.paused, c.deadline = false, time.Now().Add(c.left)
		c.t.Reset(c.left)
	}
}
