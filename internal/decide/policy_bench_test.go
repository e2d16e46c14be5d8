package decide

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

var policyTable = flag.Bool("policytable", false, "print the scenario suite's iterations per policy against a perfect oracle")

// naive is a policy without a decision engine: an iteration succeeds when the
// agent exits 0 and every required gate passes, and the run proceeds then. It
// stops after attempts iterations, or after consecutive failed iterations in a
// row (an iteration with fewer failures than the one before is not a failure).
// Before an iteration it applies the same budget rules as the engine.
type naive struct{ attempts, consecutive int }

// Brief implements [state.Decider]: the naive policy writes no feedback.
func (naive) Brief([]evidence.GateResult) string { return "" }

func (naive) Preflight(in state.PreflightInput) state.Preflight {
	return New(DefaultPolicy()).Preflight(in)
}

func (n naive) Decide(in state.DecideInput) state.Decision {
	ev := in.Evidence
	if !ev.Agent.Failed() && ev.RequiredGatesPassed() {
		return state.Decision{Action: state.ActionProceed, Succeeded: true, Quality: 1}
	}
	d := state.Decision{Action: state.ActionContinue}
	if h := in.State.History; len(h) > 0 && requiredFailures(ev) < previousFailures(h[len(h)-1]) {
		d.Succeeded = true
	}
	switch {
	case n.attempts > 0 && in.Budget.Spent.Iterations >= n.attempts:
		d.Action = state.ActionAbort
	case n.consecutive > 0 && !d.Succeeded && in.State.ConsecutiveFailures+1 >= n.consecutive:
		d.Action = state.ActionAbort
	}
	return d
}

func requiredFailures(ev evidence.Iteration) int {
	n := 0
	for _, g := range ev.Gates {
		if g.Required {
			n += max(len(g.Findings), b2i(!g.Passed))
		}
	}
	return n
}

func previousFailures(r state.Record) int {
	n := 0
	for _, g := range r.Gates {
		if g.Required {
			n += max(g.Failures, b2i(!g.Passed))
		}
	}
	return n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

type policyRun struct {
	name string
	dec  func(s scenario, t testing.TB) state.Decider
}

func policies() []policyRun {
	return []policyRun{
		{"agentloop", func(s scenario, t testing.TB) state.Decider { return New(s.policy(t)) }},
		{"fixed-3", func(scenario, testing.TB) state.Decider { return naive{attempts: 3, consecutive: failureThreshold} }},
		// The plain loop with the failure threshold (3 consecutive failures, reset by
		// a success or by fewer failures than before).
		{"consecutive-3", func(scenario, testing.TB) state.Decider { return naive{consecutive: failureThreshold} }},
	}
}

// outcome is how a simulated run ended, in the oracle's words.
func outcome(ds []state.Decision) string {
	switch a := ds[len(ds)-1].Action; a {
	case state.ActionProceed, state.ActionEscalate, state.ActionAbort:
		return string(a)
	}
	return "abort"
}

// right reports whether the run ended the way the oracle would: proceed when the
// goal was reachable, stop (escalate or abort) when it was not. Proceeding before
// the oracle would have is accepting work that is not done (weakened tests, say).
func right(got, want string, n, oracle int) bool {
	if got == "proceed" && n < oracle {
		return false
	}
	return (got == "proceed") == (want == "proceed")
}

type tally struct{ iters, oracle, right, wrongProceed int }

func runSuite(t testing.TB, each func(s scenario, p string, n int, out string)) map[string]*tally {
	tallies := map[string]*tally{}
	for _, s := range loadScenarios(t) {
		for _, p := range policies() {
			ds, _ := simulate(s, p.dec(s, t))
			tl := tallies[p.name]
			if tl == nil {
				tl = &tally{}
				tallies[p.name] = tl
			}
			out := outcome(ds)
			tl.iters += len(ds)
			tl.oracle += s.Oracle.Iterations
			if right(out, s.Oracle.Outcome, len(ds), s.Oracle.Iterations) {
				tl.right++
			} else if out == "proceed" {
				tl.wrongProceed++
			}
			if each != nil {
				each(s, p.name, len(ds), out)
			}
		}
	}
	return tallies
}

// TestPolicyTable checks the scenario suite against the perfect oracle: agentloop
// ends every scenario the way the oracle would and never proceeds with work that
// is not done, while each naive policy gets fewer outcomes right (so the oracle's
// judgement is not trivially satisfied). With -policytable (or on failure) it
// prints the iterations each policy spends on each scenario.
func TestPolicyTable(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s %-16s", "scenario", "oracle")
	for _, p := range policies() {
		fmt.Fprintf(&b, " %-20s", p.name)
	}
	b.WriteString("\n")
	row, scenarios := "", 0
	tallies := runSuite(t, func(s scenario, p string, n int, out string) {
		if p == "agentloop" {
			scenarios++
			row = fmt.Sprintf("%-22s %-16s", s.Name, fmt.Sprintf("%d %s", s.Oracle.Iterations, s.Oracle.Outcome))
		}
		mark := ""
		if !right(out, s.Oracle.Outcome, n, s.Oracle.Iterations) {
			mark = " ✗"
		}
		row += fmt.Sprintf(" %-20s", fmt.Sprintf("%d %s%s", n, out, mark))
		if p == "consecutive-3" {
			b.WriteString(row + "\n")
		}
	})
	fmt.Fprintf(&b, "\n%-16s %10s %10s %8s %14s\n", "policy", "iterations", "oracle", "right", "wrong proceed")
	for _, p := range policies() {
		tl := tallies[p.name]
		fmt.Fprintf(&b, "%-16s %10d %10d %8d %14d\n", p.name, tl.iters, tl.oracle, tl.right, tl.wrongProceed)
	}
	if *policyTable {
		t.Log("\n" + b.String())
	}
	ours := tallies["agentloop"]
	if scenarios == 0 || ours.right != scenarios || ours.wrongProceed != 0 {
		t.Errorf("agentloop: %d of %d outcomes right, %d wrong proceeds; want all right, none wrong", ours.right, scenarios, ours.wrongProceed)
	}
	for _, p := range policies()[1:] {
		if tl := tallies[p.name]; tl.right >= ours.right {
			t.Errorf("%s got %d outcomes right, agentloop %d: the baseline should do worse", p.name, tl.right, ours.right)
		}
	}
	if t.Failed() && !*policyTable {
		t.Log("\n" + b.String())
	}
}

// BenchmarkScenarioPolicies runs the whole scenario suite under each policy and
// reports the iterations spent, the oracle's iterations and the right outcomes.
func BenchmarkScenarioPolicies(b *testing.B) {
	for _, p := range policies() {
		b.Run(p.name, func(b *testing.B) {
			var tl *tally
			for b.Loop() {
				tl = runSuite(b, nil)[p.name]
			}
			b.ReportMetric(float64(tl.iters), "iterations")
			b.ReportMetric(float64(tl.oracle), "oracle-iterations")
			b.ReportMetric(float64(tl.right), "right-outcomes")
			b.ReportMetric(float64(tl.wrongProceed), "wrong-proceeds")
		})
	}
}
