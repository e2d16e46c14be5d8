package temporal

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/ledger"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
)

// TestRealServerSharedCap: on a real dev server, two loops on a worker share
// a small daily cap (soft $0.50, hard $1.00) through the ledger workflow,
// each iteration of their agent costing $0.30. Both run their first
// iteration, then both are parked at the soft limit, waiting in their
// workflows; one approval wakes both; the hard limit then lets one more
// iteration through and ends both as budget aborts. What the ledger holds is
// what the runs say they spent, within the cap plus one reservation each.
// The histories of a run and of the ledger are replayed, and with -update
// kept for TestReplayRecordedHistories.
func TestRealServerSharedCap(t *testing.T) {
	_, c := newDevServer(t)
	defer c.Close()
	ctx := t.Context()
	queue := "spend-" + time.Now().Format("150405.000000000")
	claude, err := agent.Lookup("claude")
	if err != nil {
		t.Fatal(err)
	}
	const cost = 0.30
	a := claude.Merge(agent.Override{Binary: "sh", Args: []string{"-c",
		`cat >/dev/null; echo '{"type":"result","subtype":"success","is_error":false,"result":"Done.","total_cost_usd":0.3,"usage":{"input_tokens":100,"output_tokens":50}}'`}})
	day := ledger.Cap{Name: "day", Period: ledger.Day, SoftCostUSD: 0.5, MaxCostUSD: 1}
	key := budget.Key{Provider: "claude", Account: "claude:test"}
	steps := &Steps{Log: testLogger(), Plan: func(_ context.Context, r RunRef) (*plan.Plan, error) {
		return &plan.Plan{
			Name: r.Name, WorkDir: r.WorkDir, StateDir: filepath.Join(r.WorkDir, ".agentloop"),
			Proc: config.Procedure{Name: "build"}, Agent: a, KillGrace: time.Second,
			Budgets: config.Budgets{On: true, Given: true, Caps: []ledger.Cap{day}},
			Keys:    map[string]budget.Key{"": key}, BudgetPoll: time.Second,
		}, nil
	}}
	w := NewWorker(ctx, c, Server{TaskQueue: queue}, steps, "", time.Second)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	names := []string{"spend-a", "spend-b"}
	parked := func(v View) bool {
		n := len(v.Events)
		if n == 0 {
			return false
		}
		ny, ok := v.Events[n-1].Data.(state.NeedsYou)
		return ok && ny.Kind == decision.NeedsBudget
	}
	for i, name := range names {
		in := input(budget.Limits{MaxIterations: 10, FailureThreshold: 10}, false)
		in.Run.Name, in.Run.RunID, in.Run.WorkDir, in.Shared = name, "r"+string(rune('1'+i)), t.TempDir(), true
		in.State.Name, in.State.RunID = name, in.Run.RunID
		if err := Start(ctx, c, Server{TaskQueue: queue}, in, time.Now()); err != nil {
			t.Fatal(err)
		}
		v := waitView(t, c, name, parked)
		if v.State.TotalIterations != 1-i || v.State.Status.Ended() {
			t.Errorf("run %s parked after %d iterations (%s), want after %d, running", name, v.State.TotalIterations, v.State.Status, 1-i)
		}
	}
	lc := LedgerClient{C: c, Queue: queue}
	if _, err := lc.Approve(ctx, day, "ann"); err != nil {
		t.Fatal(err)
	}
	var spent float64
	for _, name := range names {
		var res RunResult
		if err := c.GetWorkflow(ctx, WorkflowID(name), "").Get(ctx, &res); err != nil {
			t.Fatal(err)
		}
		if res.Status != state.StatusAborted || !strings.HasPrefix(res.Reason, "budget: cap day") {
			t.Errorf("run %s ended %s (%s), want a budget abort", name, res.Status, res.Reason)
		}
		spent += res.Usage.CostUSD
	}
	r, err := lc.Report(ctx, []ledger.Cap{day}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cr := r.Caps[0]
	if math.Abs(cr.Spent.USD-spent) > 1e-9 || cr.HeldUSD != 0 || !cr.Approved {
		t.Errorf("the ledger says %+v; the runs spent $%.2f: want the same, nothing held, approved", cr, spent)
	}
	// How many iterations the approval let through depends on which run
	// looked first; never more than the cap and a reservation each.
	if spent < 2*cost-1e-9 || spent > day.MaxCostUSD+2*1.2*cost {
		t.Errorf("spent $%.2f in all, want at least $%.2f (an iteration after the approval), at most the cap $%.2f plus a reservation each", spent, 2*cost, day.MaxCostUSD)
	}
	t.Logf("spent $%.2f in all under the cap $%.2f", spent, day.MaxCostUSD)
	keepHistory(t, c, "spend-a")
	keepHistory(t, c, "ledger")
}
