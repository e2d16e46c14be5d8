package inbox

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

var t0 = time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)

// TestCurrent pins when a run's last needs_you still waits.
func TestCurrent(t *testing.T) {
	t.Parallel()
	ev := func(d state.EventData) state.Event { return state.Event{Time: t0, Data: d} }
	esc := ev(state.NeedsYou{NeedsYou: decision.NeedsYou{Kind: decision.NeedsEscalated, Run: "a"}})
	bud := ev(state.NeedsYou{NeedsYou: decision.NeedsYou{Kind: decision.NeedsBudget, Run: "a"}})
	fin := func(s state.Status) state.Event { return ev(state.RunFinished{Status: s}) }
	sent := ev(state.NotificationSent{})
	tests := []struct {
		name   string
		events []state.Event
		want   string // the kind waiting, "" for none
	}{
		{"none", []state.Event{ev(state.RunStarted{}), fin(state.StatusSucceeded)}, ""},
		{"escalated", []state.Event{ev(state.RunStarted{}), ev(state.Escalated{}), esc, fin(state.StatusEscalated), sent}, "escalated"},
		{"escalation answered, resumed", []state.Event{esc, fin(state.StatusEscalated), ev(state.RunStarted{})}, ""},
		{"answered in the workflow", []state.Event{esc, ev(state.GuidanceReceived{})}, ""},
		{"aborted by you", []state.Event{esc, fin(state.StatusEscalated), fin(state.StatusAborted)}, ""},
		{"accepted by you", []state.Event{esc, fin(state.StatusEscalated), fin(state.StatusCompleted)}, ""},
		{"budget stop", []state.Event{ev(state.RunStarted{}), fin(state.StatusAborted), bud, sent}, "budget"},
		{"budget stop, resumed, aborted again otherwise", []state.Event{fin(state.StatusAborted), bud, ev(state.RunStarted{}), fin(state.StatusAborted)}, ""},
		{"parked by a shared cap's soft limit", []state.Event{ev(state.RunStarted{}), ev(state.IterationStarted{}), bud, sent}, "budget"},
		{"parked, approved, iterating again", []state.Event{ev(state.RunStarted{}), bud, ev(state.IterationStarted{})}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec, when, ok := Current(tt.events)
			if ok != (tt.want != "") || rec.Kind != tt.want || ok && !when.Equal(t0) {
				t.Errorf("Current() = %q %v %v, want %q", rec.Kind, when, ok, tt.want)
			}
		})
	}
}

func TestBudget(t *testing.T) {
	t.Parallel()
	l := budget.Limits{MaxCostUSD: 2.5, MaxTokens: 100000, MaxDuration: 90 * time.Minute}
	stopped := []budget.Resource{budget.CostUSD, budget.Duration, budget.Tokens, budget.CostUSD}
	got := Budget("build", "--engine temporal", l, "budget: cost: $0 left", stopped)
	want := decision.NeedsYou{Kind: decision.NeedsBudget, Run: "build", Question: "A budget stopped the run. Raise it to go on?", Evidence: "budget: cost: $0 left",
		Options: []decision.Answer{
			{Label: "Raise the cost budget from 2.5 to 5", TradeOff: "the run goes on where it stopped; what it spent so far counts", Command: "agentloop resume build --max-cost 5 --engine temporal"},
			{Label: "Raise the time budget from 1h30m to 3h", TradeOff: "the run goes on where it stopped; what it spent so far counts", Command: "agentloop resume build --max-duration 3h --engine temporal"},
			{Label: "Raise the token budget from 100000 to 200000", TradeOff: "the run goes on where it stopped; what it spent so far counts", Command: "agentloop resume build --max-tokens 200000 --engine temporal"},
			{Label: "Leave it stopped", TradeOff: "the work tree keeps the run's best checkpoint", Command: "agentloop status build --engine temporal"},
		}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Budget() mismatch (-want +got):\n%s", diff)
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
	aborted := loop.Outcome{Status: state.StatusAborted}
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
	if _, ok := Stopped("b", "", &byBudget, budget.Limits{MaxCostUSD: 1}, loop.Outcome{Status: state.StatusSucceeded}, nil); ok {
		t.Error("succeeded: a record")
	}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	u := graph.Unfinished{ID: "api", State: tasks.StateEscalated, Issue: tasks.MergeConflict,
		Reason: "merging branch agentloop/plan/api conflicts in a.go, b.go: resolve by hand, then resume",
		Next:   "merge main into its worktree, resolve the conflict and commit there, then: agentloop run --tasks plan.yaml --engine temporal"}
	items := []Item{{Since: t0.Add(-3 * time.Hour), Engine: "temporal", NeedsYou: Unmerged("plan", u, graph.Commands{TaskFile: "plan.yaml", Engine: "--engine temporal"})}}
	items[0].Report = "/repo/.agentloop/runs/x/escalation-001.md"
	var b bytes.Buffer
	if err := Write(&b, items, t0, "/repo"); err != nil {
		t.Fatal(err)
	}
	want := `1 loop needs you:

plan-api (task api of plan) — not merged, 3h ago, on Temporal
  merging branch agentloop/plan/api conflicts in a.go, b.go: resolve by hand, then resume
  Question: The branch of task api conflicts with the work merged before it. Resolve it?
  1) merge main into its worktree, resolve the conflict and commit there, then: agentloop run --tasks plan.yaml --engine temporal
     agentloop run --tasks plan.yaml --engine temporal
  Report: .agentloop/runs/x/escalation-001.md
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Write() mismatch (-want +got):\n%s", diff)
	}
	u.Issue = tasks.MergeGates
	if rec := Unmerged("plan", u, graph.Commands{TaskFile: "plan.yaml"}); rec.Options[0].Command != `agentloop resume plan-api --guidance "..."` || rec.Kind != decision.NeedsMerge {
		t.Errorf("gates failing on the merged result: %+v", rec)
	}
}
