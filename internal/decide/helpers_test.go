package decide

import (
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// iter builds an iteration's evidence: a required test gate with the given failing
// test keys (9 passing tests besides) and a clean diff.
func iter(n int, failing ...string) evidence.Iteration {
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	g := evidence.GateResult{Name: "tests", Required: true, Passed: len(failing) == 0, Tests: evidence.TestCounts{Passed: 9, Failed: len(failing)}}
	for _, k := range failing {
		g.Findings = append(g.Findings, evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: k, Key: "test:" + k, Message: k + " failed"})
	}
	return evidence.Iteration{
		N: n, Started: start, Finished: start.Add(time.Minute),
		Gates: []evidence.GateResult{g},
		Diff:  evidence.DiffFacts{Hash: "d" + itoa(n), TreeHash: "t" + itoa(n), Files: []string{"a.go"}, Added: 5},
	}
}

// past turns iterations and the strategies chosen after them into records, as
// the loop would have kept them (quality and triggers from the engine itself).
func past(p Policy, spec state.Spec, evs []evidence.Iteration) *state.State {
	return pastFrom(&state.State{Version: 1, Name: "t", Status: state.StatusRunning}, p, spec, evs)
}

// pastFrom is [past] from a given state (a baseline, say).
func pastFrom(st *state.State, p Policy, spec state.Spec, evs []evidence.Iteration) *state.State {
	e := New(p)
	for _, ev := range evs {
		d := e.Decide(state.DecideInput{State: st, Spec: &spec, Evidence: ev, Budget: state.BudgetStatus(st, &ev)})
		record(st, ev, d)
	}
	return st
}

func gated() state.Spec { return state.Spec{Name: "t", HasGates: true} }

// thresholded is a gated spec with a failure threshold.
func thresholded(n int) state.Spec {
	s := gated()
	s.Limits.FailureThreshold = n
	return s
}

// baseline is a run's state before its first iteration: with failing set, the
// baseline gates ran and the tests gate failed with those keys.
func baseline(failing []string) *state.State {
	st := &state.State{Version: 1, Name: "t", Status: state.StatusRunning}
	if failing != nil {
		st.BaselineDone = true
		st.Baseline = []evidence.GateResult{iter(0, failing...).Gates[0]}
	}
	return st
}

func reviewed() state.Spec { return state.Spec{Name: "t", HasGates: true, HasReviewer: true} }

func with(ev evidence.Iteration, f func(*evidence.Iteration)) evidence.Iteration {
	f(&ev)
	return ev
}

func rule(d state.Decision) string {
	if doc := d.Document; doc != nil {
		return doc.Decision.Rule
	}
	return ""
}

// done is the budget status after n iterations with nothing else known.
func done(n int) budget.Status { return budget.Status{Spent: budget.Spent{Iterations: n}} }

// limited is a test's budget: the limits, and what was spent with the
// iteration included (Iterations 0: the iteration's number).
type limited struct {
	Iterations    int
	Spent         evidence.Usage
	MaxIterations int
	MaxCostUSD    float64
}

// input is the decision input with b's limits on spec and b's spend as the
// status, the per-iteration costs as the loop keeps them.
func (b limited) input(st *state.State, spec state.Spec, ev evidence.Iteration) state.DecideInput {
	if b.Iterations == 0 {
		b.Iterations = ev.N
	}
	spec.Limits.MaxIterations, spec.Limits.MaxCostUSD = b.MaxIterations, b.MaxCostUSD
	s := state.BudgetStatus(st, &ev)
	s.Spent = b.Spent.Spent(s.Spent.Duration, b.Iterations)
	return state.DecideInput{State: st, Spec: &spec, Evidence: ev, Budget: s}
}

// unchanged makes an iteration one whose agent changed nothing.
func unchanged(ev *evidence.Iteration) { ev.Diff = evidence.DiffFacts{TreeHash: "t0"} }
