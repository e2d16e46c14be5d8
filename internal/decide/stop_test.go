package decide

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

func TestPreflight(t *testing.T) {
	t.Parallel()
	costs := []budget.Cost{{CostUSD: 1, CostKnown: true}, {CostUSD: 1, CostKnown: true}}
	spent := budget.Status{Spent: budget.Total(costs), PerIteration: costs}
	spent.Spent.Iterations = 2
	var cheap []budget.Cost // ten iterations of $0.10
	for range 10 {
		cheap = append(cheap, budget.Cost{CostUSD: 0.1, CostKnown: true})
	}
	tenCheap := budget.Status{Spent: budget.Total(cheap), PerIteration: cheap}
	tests := []struct {
		name      string
		spec      state.Spec
		iteration int
		status    budget.Status
		action    state.Action
		message   string // substring
		warn      bool
		remaining budget.Remaining
		stopped   []budget.Resource // the limits that stop the run
	}{
		{name: "nothing to stop", spec: state.Spec{Limits: budget.Limits{MaxIterations: 5}}, iteration: 2, status: spent,
			action: state.ActionContinue, remaining: budget.Unlimited()},
		{name: "a plain loop completes at its limit", spec: state.Spec{Limits: budget.Limits{MaxIterations: 2}}, iteration: 2, status: spent,
			action: state.ActionComplete, message: "max iterations reached (2)", remaining: budget.Unlimited()},
		{name: "a gated loop escalates at its limit", spec: state.Spec{HasGates: true, Limits: budget.Limits{MaxIterations: 2}}, iteration: 2,
			status: spent, action: state.ActionEscalate, message: "max iterations reached (2) with the goal not met", remaining: budget.Unlimited()},
		{name: "spent: abort", spec: state.Spec{Limits: budget.Limits{MaxCostUSD: 2}}, iteration: 2, status: spent,
			action: state.ActionAbort, message: "budget: cost: $2.00 spent of $2.00", remaining: budget.Remaining{Tokens: -1, CostUSD: 0, Duration: -1}, stopped: []budget.Resource{budget.CostUSD}},
		{name: "cannot afford another: abort", spec: state.Spec{Limits: budget.Limits{MaxCostUSD: 3.1}}, iteration: 2, status: spent,
			action: state.ActionAbort, message: "an iteration takes about $1.20", remaining: budget.Remaining{Tokens: -1, CostUSD: 1.1, Duration: -1}, stopped: []budget.Resource{budget.CostUSD}},
		{name: "past 80%: go on with a warning", spec: state.Spec{Limits: budget.Limits{MaxCostUSD: 1.2}}, iteration: 10, status: tenCheap,
			action: state.ActionContinue, warn: true, remaining: budget.Remaining{Tokens: -1, CostUSD: 0.2, Duration: -1}},
		{name: "the threshold is not a budget", spec: state.Spec{Limits: budget.Limits{FailureThreshold: 1}}, iteration: 2, status: spent,
			action: state.ActionContinue, remaining: budget.Unlimited()},
	}
	e := New(DefaultPolicy())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := e.Preflight(state.PreflightInput{State: &state.State{Iteration: tt.iteration}, Spec: &tt.spec, Budget: tt.status})
			if p.Action != tt.action || !strings.Contains(p.Message, tt.message) || (len(p.Warn) > 0) != tt.warn {
				t.Errorf("Preflight = %s %q warn %v, want %s %q warn %v", p.Action, p.Message, p.Warn, tt.action, tt.message, tt.warn)
			}
			if !slices.Equal(p.Budgets, tt.stopped) {
				t.Errorf("Budgets = %v, want %v", p.Budgets, tt.stopped)
			}
			if d := p.Remaining.CostUSD - tt.remaining.CostUSD; d > 1e-9 || d < -1e-9 || p.Remaining.Tokens != tt.remaining.Tokens {
				t.Errorf("Remaining = %+v, want %+v", p.Remaining, tt.remaining)
			}
		})
	}
}

func TestThresholdReached(t *testing.T) {
	t.Parallel()
	tests := []struct {
		threshold, before int
		succeeded         bool
		label, want       string
	}{
		{threshold: 3, before: 1, label: "no progress"},
		{threshold: 3, before: 2, label: "no progress", want: "no progress; consecutive failures: 3/3"},
		{threshold: 3, before: 2, succeeded: true, label: "progress: 1 of 2 fixed"},
		{threshold: 1, before: 0, want: "consecutive failures: 1/1"},
		{threshold: 0, before: 9, label: "no progress"},
	}
	for _, tt := range tests {
		in := state.DecideInput{State: &state.State{ConsecutiveFailures: tt.before}, Spec: &state.Spec{Limits: budget.Limits{FailureThreshold: tt.threshold}}}
		got, ok := thresholdReached(in, tt.succeeded, tt.label)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("threshold %d after %d (succeeded %v): %q %v, want %q", tt.threshold, tt.before, tt.succeeded, got, ok, tt.want)
		}
	}
}

// TestVerdict: each iteration is labelled by its evidence, and one that broke
// something or made no progress is a failure whatever the engine does next.
func TestVerdict(t *testing.T) {
	t.Parallel()
	build := func(ev *evidence.Iteration) {
		ev.Gates[0].Passed = false
		ev.Gates[0].Findings = []evidence.Finding{{Kind: evidence.KindBuild, File: "a.go", Message: "syntax error"}}
	}
	tests := []struct {
		name     string
		hist     []evidence.Iteration
		baseline []evidence.GateResult
		ev       evidence.Iteration
		label    string
		failed   bool
	}{
		{name: "goal met", hist: []evidence.Iteration{iter(1, "A")}, ev: iter(2), label: ""},
		{name: "progress", hist: []evidence.Iteration{iter(1, "A", "B")}, ev: iter(2, "B"), label: "progress: 1 of 2 fixed"},
		{name: "no progress", hist: []evidence.Iteration{iter(1, "A")}, ev: iter(2, "A"), label: "no progress", failed: true},
		{name: "broke something while fixing another", hist: []evidence.Iteration{iter(1, "A", "B")}, ev: iter(2, "B", "C"),
			label: "failed: broke test:C", failed: true},
		{name: "build broken", hist: []evidence.Iteration{iter(1, "A")}, ev: with(iter(2), build), label: "failed: build broken", failed: true},
		{name: "agent failed", ev: with(iter(1, "A"), func(ev *evidence.Iteration) { ev.Agent.ExitCode = 2 }),
			label: "agent failed: exit 2", failed: true},
		{name: "a gate could not run", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Gates[0].Infra = true; ev.Gates[0].Passed = false }),
			label: "failed: gate tests could not run", failed: true},
		{name: "first iteration against the baseline", baseline: iter(0, "A", "B").Gates, ev: iter(1, "A"), label: "progress: 1 of 2 fixed"},
		{name: "first iteration, baseline unchanged", baseline: iter(0, "A").Gates, ev: iter(1, "A"), label: "no progress", failed: true},
		{name: "first iteration, nothing to compare", ev: iter(1, "A"), label: "nothing fixed yet", failed: true},
		{name: "a flaky test is not a new failure", hist: []evidence.Iteration{iter(1, "A")},
			ev: with(iter(2, "F"), func(ev *evidence.Iteration) { ev.Gates[0].Findings[0].Flaky = true }), label: "progress: 1 of 1 fixed"},
	}
	p := DefaultPolicy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := gated()
			st := past(p, spec, tt.hist)
			if tt.baseline != nil {
				st.Baseline, st.BaselineDone = tt.baseline, true
			}
			in := state.DecideInput{State: st, Spec: &spec, Evidence: tt.ev, Budget: state.BudgetStatus(st, &tt.ev)}
			v := judge(New(p).facts(in, Failing(tt.ev), Quality(tt.ev)))
			if v.label != tt.label || v.failed != tt.failed {
				t.Errorf("verdict %q failed=%v, want %q failed=%v", v.label, v.failed, tt.label, tt.failed)
			}
			d := New(p).Decide(in)
			if d.Succeeded == tt.failed || tt.label != "" && d.Action.Continues() && !strings.HasPrefix(d.Message, tt.label) {
				t.Errorf("decision %s succeeded=%v %q, want the label first and succeeded=%v", d.Action, d.Succeeded, d.Message, !tt.failed)
			}
		})
	}
}

// After a guidance, the new segment's first iteration is measured against the
// iteration the segment started from, not labelled "nothing fixed yet".
func TestVerdictAfterGuidance(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	spec := gated()
	st := past(p, spec, []evidence.Iteration{iter(1, "A", "B"), iter(2, "A", "B")})
	state.ApplyGuidance(st, state.Guidance{Text: "B is the right behaviour"})
	ev := iter(1, "B")
	in := state.DecideInput{State: st, Spec: &spec, Evidence: ev, Budget: state.BudgetStatus(st, &ev)}
	if v := judge(New(p).facts(in, Failing(ev), Quality(ev))); v.label != "progress: 1 of 2 fixed" || v.failed {
		t.Errorf("verdict %q failed=%v, want progress against the last iteration before the guidance", v.label, v.failed)
	}
	// With segments recorded, the one the guidance was given on is the start.
	for i := range st.History {
		st.History[i].Segment = 1
		st.History[i].Checkpoint = fmt.Sprintf("c%d", i+1)
	}
	st.History[0].Failing, st.History[0].Quality = []string{"test:A"}, 0.9 // the better one, where the tree was left
	st.Handoffs[len(st.Handoffs)-1].Checkpoint = "c1"
	if v := judge(New(p).facts(in, Failing(ev), Quality(ev))); v.label != "failed: broke test:B" || !v.failed {
		t.Errorf("verdict %q failed=%v, want it measured against c1, where the segment started", v.label, v.failed)
	}
}
