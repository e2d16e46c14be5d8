package loop

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

func TestBudget(t *testing.T) {
	t.Parallel()
	l := budget.Limits{MaxCostUSD: 2.5, MaxTokens: 100000, MaxDuration: 90 * time.Minute}
	stopped := []budget.Resource{budget.CostUSD, budget.Duration, budget.Tokens, budget.CostUSD}
	got := BudgetNeeds("build", "--engine temporal", l, "budget: cost: $0 left", stopped)
	want := decision.NeedsYou{Kind: decision.NeedsBudget, Run: "build", Question: "A budget stopped the run. Raise it to go on?", Evidence: "budget: cost: $0 left",
		Options: []decision.Answer{
			{Label: "Raise the cost budget from 2.5 to 5", TradeOff: "the run goes on where it stopped; what it spent so far counts", Command: "agentloop resume build --max-cost 5 --engine temporal"},
			{Label: "Raise the time budget from 1h30m to 3h", TradeOff: "the run goes on where it stopped; what it spent so far counts", Command: "agentloop resume build --max-duration 3h --engine temporal"},
			{Label: "Raise the token budget from 100000 to 200000", TradeOff: "the run goes on where it stopped; what it spent so far counts", Command: "agentloop resume build --max-tokens 200000 --engine temporal"},
			{Label: "Leave it stopped", TradeOff: "the work tree keeps the run's best checkpoint", Command: "agentloop status build --engine temporal"},
		}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("BudgetNeeds() mismatch (-want +got):\n%s", diff)
	}
}

// TestStopped: a setup error and a budget stop wait for a person; a stop by
// the failure threshold does not. Whether a budget stopped the run, and
// which, is the loop's decision as its state records it, not the budget
// judged again: a run its cost budget stopped is in the inbox even when its
// limits, judged now, would let it go on, and a run the failure threshold
// stopped is not, even when its spend is past its limits.
func TestStopped(t *testing.T) {
	t.Parallel()
	spent := state.State{Iteration: 2, Status: state.StatusAborted, Spend: state.Spend{Usage: evidence.Usage{CostUSD: 1, CostKnown: true}},
		History: []state.Record{{Usage: evidence.Usage{CostUSD: 0.5, CostKnown: true}}, {Usage: evidence.Usage{CostUSD: 0.5, CostKnown: true}}}}
	byBudget, byThreshold := spent, spent
	byBudget.Reason, byBudget.StoppedBy = "budget cannot afford another iteration: cost left: $0.40, an iteration takes $0.50 on average", []budget.Resource{budget.CostUSD}
	byThreshold.Reason = "consecutive failures: 3/3"
	aborted := Outcome{Status: state.StatusAborted}
	se := &agent.SetupError{Agent: "claude", Message: "401", Fix: "set ANTHROPIC_API_KEY"}
	if rec, ok := Stopped("b", "", &byThreshold, budget.Limits{}, aborted, errors.Join(errors.New("x"), se)); !ok || rec.Kind != decision.NeedsSetup ||
		rec.Options[0].Command != "agentloop resume b" || rec.Options[0].TradeOff != "to fix: set ANTHROPIC_API_KEY" {
		t.Errorf("setup: %+v %v", rec, ok)
	}
	// $10 would afford another iteration now: the record is still the run's own stop.
	rec, ok := Stopped("b", "", &byBudget, budget.Limits{MaxCostUSD: 10}, aborted, nil)
	if !ok || rec.Kind != decision.NeedsBudget || rec.Evidence != byBudget.Reason ||
		len(rec.Options) != 2 || rec.Options[0].Command != "agentloop resume b --max-cost 20" {
		t.Errorf("stopped by its cost budget: %+v %v", rec, ok)
	}
	if rec, ok := Stopped("b", "", &byThreshold, budget.Limits{MaxCostUSD: 1}, aborted, nil); ok {
		t.Errorf("stopped by the failure threshold, its cost past its limit: a record %+v", rec)
	}
	if _, ok := Stopped("b", "", &byBudget, budget.Limits{MaxCostUSD: 1}, Outcome{Status: state.StatusSucceeded}, nil); ok {
		t.Error("succeeded: a record")
	}
}
