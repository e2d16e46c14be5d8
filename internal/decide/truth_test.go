package decide

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// TestDecisionsTellTheTruth: what a decision says and offers follows from the
// evidence: weakened tests are never the best checkpoint nor accepted, an
// oscillation is named for what it is, a flaky failure is said and not counted,
// and a regression that comes back after a fresh attempt escalates.
func TestDecisionsTellTheTruth(t *testing.T) {
	t.Parallel()
	skip := func(ev *evidence.Iteration) { ev.Diff.SkipsAdded = 1 }
	flaky := func(ev *evidence.Iteration) {
		ev.Gates[0].Flaky = []evidence.Finding{{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestClock", Flaky: true}}
	}
	tests := []struct {
		name   string
		spec   state.Spec
		base   []string
		hist   []evidence.Iteration
		ev     evidence.Iteration
		budget limited
		action state.Action
		// message, options and best must contain / must not contain these
		message, noMessage []string
		options, noOptions []string
		best               string
		noBest             bool // the decision must not make this iteration the best
		succeeded          *bool
	}{
		{name: "weakened tests are never the best checkpoint", ev: with(iter(1), skip), action: state.ActionRefine,
			message: []string{"failed: weakened the tests (1 skip added)"}, noBest: true, succeeded: ptr(false)},
		{name: "weakened tests are never offered as accept as it is", ev: with(iter(1), skip), budget: limited{MaxIterations: 1},
			action: state.ActionEscalate, noOptions: []string{"Accept the best checkpoint"}, best: "none: iteration 1 weakened the tests", noBest: true},
		{name: "repeated weakening offers no accept either", hist: []evidence.Iteration{with(iter(1), skip)},
			ev: with(iter(2), func(ev *evidence.Iteration) { ev.Diff.AssertsRemoved = 1 }), action: state.ActionEscalate,
			noOptions: []string{"Accept"}, best: "none: iteration 2 weakened the tests", noBest: true},
		{name: "an earlier honest iteration stays the best over a weakened one", hist: []evidence.Iteration{iter(1, "A", "B")},
			ev: with(iter(2), skip), budget: limited{MaxIterations: 2}, action: state.ActionEscalate,
			options: []string{"Accept the best checkpoint"}, best: "iteration 1, quality", noBest: true},
		{name: "oscillation escalates naming both failures", base: []string{"A"}, hist: []evidence.Iteration{iter(1, "B"), iter(2, "A")}, ev: iter(3, "B"),
			action: state.ActionEscalate, message: []string{"oscillation: the fix for test:B breaks test:A, and the fix for test:A breaks test:B again"},
			noMessage: []string{"conflicting requirements", "which wins"}, options: []string{"Resume with your guidance"}, noOptions: []string{"requirement wins"}},
		{name: "a flaky failure is said and the run proceeds", base: []string{"A"}, ev: with(iter(1), flaky), action: state.ActionProceed,
			message: []string{"all required gates passed; flaky: failed then passed: calc.TestClock"}, succeeded: ptr(true)},
		{name: "a flaky failure beside progress does not count as broken", base: []string{"A", "B"}, ev: with(iter(1, "A"), flaky), action: state.ActionRefine,
			message: []string{"progress: 1 of 2 fixed; flaky: failed then passed: calc.TestClock"}, succeeded: ptr(true)},
		{name: "after a broken build, progress is measured against the last iteration whose tests ran", hist: []evidence.Iteration{iter(1, "A", "B"), with(iter(2), func(ev *evidence.Iteration) {
			ev.Gates[0].Passed = false
			ev.Gates[0].Findings = []evidence.Finding{{Kind: evidence.KindBuild, Tool: "go", File: "a.go", Message: "syntax error"}}
		})}, ev: iter(3, "B"), action: state.ActionRefine, message: []string{"progress: 1 of 2 fixed"}, noMessage: []string{"broke"}, succeeded: ptr(true)},
		{name: "stuck on a regression that came back names the regression", hist: []evidence.Iteration{iter(1, "A", "B"), iter(2, "B"), iter(3, "B", "C", "D"),
			with(iter(4, "B", "C", "D"), func(ev *evidence.Iteration) { ev.Diff.Hash = "d3" })},
			ev: with(iter(5, "B", "C", "D"), func(ev *evidence.Iteration) { ev.Diff.Hash = "d3" }), action: state.ActionEscalate,
			message: []string{"no progress for ", "a fresh attempt from the best checkpoint did not help", "regression again: 2 tests that pass at iteration 2 (the best) fail now: test:C (+1 more)"}},
		{name: "an agent that timed out is said once", base: []string{"A"}, ev: with(iter(1, "A"), func(ev *evidence.Iteration) {
			ev.Agent.TimedOut, ev.Agent.ExitCode, ev.Agent.Reason = true, -1, "timed out after 10m0s"
			ev.Gates = nil // a timed-out agent's tree is not gated
		}), action: state.ActionRefine, message: []string{"timed out after 10m0s"}, noMessage: []string{"10m0s; agent timed out"}, succeeded: ptr(false)},
		{name: "a regression back after a simplification escalates", hist: []evidence.Iteration{iter(1, "A", "B"), iter(2, "B"), iter(3, "B", "C", "D"), iter(4, "B", "C", "E")},
			ev: iter(5, "B", "C", "F"), action: state.ActionEscalate, message: []string{"regression again after 1 simplification"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := DefaultPolicy()
			p.Patience = 9 // keep the plateau out of these
			spec := tt.spec
			if !spec.HasGates {
				spec = gated()
			}
			st := pastFrom(baseline(tt.base), p, spec, tt.hist)
			d := New(p).Decide(tt.budget.input(st, spec, tt.ev))
			if d.Action != tt.action {
				t.Fatalf("got %s (%s), want %s", d.Action, d.Message, tt.action)
			}
			for _, m := range tt.message {
				if !strings.Contains(d.Message, m) {
					t.Errorf("message %q lacks %q", d.Message, m)
				}
			}
			for _, m := range tt.noMessage {
				if strings.Contains(strings.ToLower(d.Message+" "+questionOf(d)), m) {
					t.Errorf("message or question %q says %q", d.Message+" "+questionOf(d), m)
				}
			}
			var opts []string
			if d.Escalation != nil {
				opts = d.Escalation.Options
			}
			for _, o := range tt.options {
				if !slices.ContainsFunc(opts, func(s string) bool { return strings.Contains(s, o) }) {
					t.Errorf("options %q lack %q", opts, o)
				}
			}
			for _, o := range tt.noOptions {
				if slices.ContainsFunc(opts, func(s string) bool { return strings.Contains(s, o) }) {
					t.Errorf("options %q offer %q", opts, o)
				}
			}
			if tt.best != "" && (d.Escalation == nil || !strings.Contains(d.Escalation.Report.Best, tt.best)) {
				t.Errorf("best checkpoint %q, want %q", d.Escalation.Report.Best, tt.best)
			}
			if tt.noBest && d.Best != nil {
				t.Errorf("the iteration became the best checkpoint: %+v", d.Best)
			}
			if tt.succeeded != nil && d.Succeeded != *tt.succeeded {
				t.Errorf("succeeded %v, want %v (%s)", d.Succeeded, *tt.succeeded, d.Message)
			}
		})
	}
}

func questionOf(d state.Decision) string {
	if d.Escalation == nil {
		return ""
	}
	return d.Escalation.Question
}

func ptr[T any](v T) *T { return &v }

// An agent that runs out of time in the iteration that escalates: the reason
// names the timeout, the question asks about time rather than the failure it
// may never have reached, and giving it more time is an option whose command
// raises the timeout by half; an idle timeout, which no flag raises, gets the
// question but not that option.
func TestEscalationAfterAgentTimeout(t *testing.T) {
	timedOut := func(idle bool) func(ev *evidence.Iteration) {
		return func(ev *evidence.Iteration) {
			ev.Agent.TimedOut, ev.Agent.IdleTimedOut, ev.Agent.ExitCode = !idle, idle, -1
			ev.Agent.Reason = "timed out after 10m0s"
			if idle {
				ev.Agent.Reason = "timed out: no output for 5m0s"
			}
			ev.Gates = nil
		}
	}
	tests := []struct {
		name     string
		idle     bool
		raised   state.Millis // a timeout an expand raised before this iteration
		reason   string
		question string
		more     string // the "Give it more time" option's flags; "" for none
	}{
		{name: "iteration timeout", reason: "iteration 2: agent timed out after 10m0s",
			question: "In iteration 2 the agent timed out after 10m0s: does it need more time", more: `--iteration-timeout 15m --guidance "..."`},
		{name: "a raised timeout is raised again", raised: state.MillisOf(15 * time.Minute), reason: "iteration 2: agent timed out",
			question: "does it need more time", more: `--iteration-timeout 22m30s --guidance "..."`},
		{name: "idle timeout", idle: true, reason: "iteration 2: agent timed out: no output for 5m0s",
			question: "In iteration 2 the agent timed out: no output for 5m0s: does it need more time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := DefaultPolicy()
			spec := gated()
			spec.Limits.IterationTimeout = 10 * time.Minute
			st := pastFrom(baseline([]string{"A", "B"}), p, spec, []evidence.Iteration{iter(1, "A")})
			st.Next.Timeout = tt.raised
			d := New(p).Decide(limited{MaxIterations: 2}.input(st, spec, with(iter(2, "A"), timedOut(tt.idle))))
			if d.Action != state.ActionEscalate || d.Escalation == nil {
				t.Fatalf("got %s (%s), want an escalation", d.Action, d.Message)
			}
			if !strings.Contains(d.Message, tt.reason) || d.Escalation.Report.Reason != d.Message {
				t.Errorf("reason %q (report %q) lacks %q", d.Message, d.Escalation.Report.Reason, tt.reason)
			}
			if q := d.Escalation.Question; !strings.Contains(q, tt.question) || strings.Contains(q, "miss") {
				t.Errorf("question %q, want %q", q, tt.question)
			}
			var more string
			for _, o := range d.Escalation.Report.Options {
				if o.Label == "Give it more time" {
					more = o.Resume
				}
			}
			if more != tt.more {
				t.Errorf("more time: %q, want %q", more, tt.more)
			}
		})
	}
}
