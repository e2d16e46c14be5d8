package engine

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/ledger"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// clock is a fake clock that Sleep moves on.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return nil
}

func sharedLocal(t *testing.T, caps []ledger.Cap, onSleep func()) (*Local, *ledger.Ledger, *clock) {
	t.Helper()
	c := &clock{now: time.Date(2026, 11, 25, 10, 0, 0, 0, time.Local)}
	lg, err := ledger.Open(filepath.Join(t.TempDir(), ledger.FileName), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lg.Close() })
	lg.Now = c.Now
	k := budget.Key{Provider: "claude", Account: "claude:login"}
	l := &Local{Name: "build", RunDir: t.TempDir(), Now: c.Now, Log: slog.New(slog.DiscardHandler),
		Sleep: func(ctx context.Context, d time.Duration) error {
			if onSleep != nil {
				onSleep()
			}
			return c.Sleep(ctx, d)
		},
		Spend: &SharedSpend{Ledger: lg, Caps: caps, Run: "build", Keys: map[string]budget.Key{"": k}, Poll: time.Second}}
	return l, lg, c
}

func TestReserveWaitsOutAUsageWindow(t *testing.T) {
	t.Parallel()
	l, lg, c := sharedLocal(t, nil, nil)
	start := c.Now()
	if err := lg.OpenWindow(budget.Key{Provider: "claude", Account: "claude:login"}, start.Add(3500*time.Millisecond), "usage limit reached"); err != nil {
		t.Fatal(err)
	}
	res, err := l.Step(t.Context(), loop.StepRequest{Kind: loop.StepReserve, Seq: 1, Iteration: 1})
	if err != nil {
		t.Fatal(err)
	}
	if waited := c.Now().Sub(start); waited < 3500*time.Millisecond || waited > 5*time.Second {
		t.Errorf("waited %s for a window of 3.5s", waited)
	}
	if l.held == nil || !res.Finished.After(res.Started) {
		t.Errorf("after the window: held %+v, result %+v", l.held, res)
	}
}

func TestReserveStopsAtAHardCapAndParksAtASoftOne(t *testing.T) {
	t.Parallel()
	k := budget.Key{Provider: "claude", Account: "claude:login"}
	hard := []ledger.Cap{{Name: "day", Period: ledger.Day, MaxCostUSD: 1}}
	l, lg, _ := sharedLocal(t, hard, nil)
	if err := lg.Settle("old", "other", k, []ledger.Charge{{Key: k, USD: 0.9}}); err != nil {
		t.Fatal(err)
	}
	_, err := l.Step(t.Context(), loop.StepRequest{Kind: loop.StepReserve, Seq: 1, Reserve: budget.Cost{CostUSD: 0.2, CostKnown: true}})
	se, ok := errors.AsType[*loop.StopError](err)
	if !ok || se.Status != state.StatusAborted || l.held != nil {
		t.Fatalf("over the hard cap: %v, held %+v", err, l.held)
	}

	soft := []ledger.Cap{{Name: "day", Period: ledger.Day, SoftCostUSD: 1, MaxCostUSD: 5}}
	var other *ledger.Ledger
	sleeps := 0
	l2, lg2, _ := sharedLocal(t, soft, func() {
		sleeps++
		if sleeps == 3 { // a person approves from another terminal while it is parked
			if _, err := other.Approve(soft[0], "you"); err != nil {
				t.Error(err)
			}
		}
	})
	other, _ = ledger.Open(lg2.Path, nil)
	other.Now = lg2.Now
	defer other.Close()
	if err := lg2.Settle("old", "other", k, []ledger.Charge{{Key: k, USD: 0.9}}); err != nil {
		t.Fatal(err)
	}
	if _, err := l2.Step(t.Context(), loop.StepRequest{Kind: loop.StepReserve, Seq: 1, Reserve: budget.Cost{CostUSD: 0.2, CostKnown: true}}); err != nil {
		t.Fatal(err)
	}
	if sleeps != 3 || l2.held == nil || l2.held.leftUSD != 4.1 {
		t.Errorf("parked %d polls, held %+v; want 3 polls, then $4.10 left to spend (5 − the others' 0.9)", sleeps, l2.held)
	}
}

// TestWithinHeldTakesTheTighterLimit: the agent's live kill limit is the
// tighter of the run's own budget left and what its reservation was left
// under the shared caps (-1: no limit), each of dollars and tokens alone.
func TestWithinHeldTakesTheTighterLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		held *held
		in   budget.Remaining
		want budget.Remaining
	}{
		{"nothing held", nil, budget.Remaining{Tokens: 500, CostUSD: 2, Duration: -1}, budget.Remaining{Tokens: 500, CostUSD: 2, Duration: -1}},
		{"the caps are tighter", &held{leftUSD: 1.5, leftTokens: 300}, budget.Remaining{Tokens: 500, CostUSD: 2, Duration: -1}, budget.Remaining{Tokens: 300, CostUSD: 1.5, Duration: -1}},
		{"the run's budget is tighter", &held{leftUSD: 4, leftTokens: 900}, budget.Remaining{Tokens: 500, CostUSD: 2, Duration: -1}, budget.Remaining{Tokens: 500, CostUSD: 2, Duration: -1}},
		{"one of each", &held{leftUSD: 1, leftTokens: 900}, budget.Remaining{Tokens: 500, CostUSD: 2, Duration: -1}, budget.Remaining{Tokens: 500, CostUSD: 1, Duration: -1}},
		{"no budget of its own", &held{leftUSD: 1, leftTokens: 300}, budget.Unlimited(), budget.Remaining{Tokens: 300, CostUSD: 1, Duration: -1}},
		{"no cap", &held{leftUSD: -1, leftTokens: -1}, budget.Remaining{Tokens: 500, CostUSD: 2, Duration: -1}, budget.Remaining{Tokens: 500, CostUSD: 2, Duration: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := &Local{held: tt.held}
			if got := l.withinHeld(tt.in); got != tt.want {
				t.Errorf("withinHeld(%+v) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

// TestOnlyAnAskedForLedgerSyncsEachSettlement: a run that keeps the ledger
// without asking for it (no budgets) lets its settlements wait up to a second
// for their sync; one with budgets has each synced before it goes on.
// TestOnlyAnAskedForLedgerSyncsEachSettlement: and either keeps its book
// cached (a run reads only what the ledger gained since the cache).
func TestOnlyAnAskedForLedgerSyncsEachSettlement(t *testing.T) {
	t.Parallel()
	for _, optional := range []bool{false, true} {
		s := &SharedSpend{Path: filepath.Join(t.TempDir(), ledger.FileName), Optional: optional}
		if err := s.open(); err != nil {
			t.Fatal(err)
		}
		want := time.Duration(0)
		if optional {
			want = time.Second
		}
		if s.Ledger.SyncWithin != want {
			t.Errorf("optional %v: SyncWithin %s, want %s", optional, s.Ledger.SyncWithin, want)
		}
		if !s.Ledger.Cached {
			t.Errorf("optional %v: the run's ledger is read whole at each start, want its book cached", optional)
		}
		_ = s.Ledger.Close()
	}
}
