package decide

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// A test that failed at the run's start and passes after the run edited its
// test file was made to pass by changing what it checks (ImpossibleBench's
// cheat on tests that contradict the task or each other): with no assertion
// removed and no skip added, the iteration is still no success. A task that
// asks to change the test by name, a policy that allows test edits, a test
// whose file the run did not touch, or one still failing, is not counted.
func TestEditedToPass(t *testing.T) {
	t.Parallel()
	const why = "failing at the start, passing only after their test was edited: calc.TestAbsNeg (calc_test.go)"
	tests := []struct {
		name      string
		task      string
		changed   []string // test files changed since the run's start
		failing   []string // tests failing now
		allow     bool     // the policy allows test edits
		removed   []string // tests removed since the start
		noStart   bool     // no diff since the start
		n         int      // the iteration (0: 2)
		action    state.Action
		weakening bool
	}{
		{name: "its test edited, green: refused", changed: []string{"calc/calc_test.go"}, action: state.ActionRefine, weakening: true},
		{name: "the task gives its text, not the test's name: refused", task: "Abs returns the absolute value: Abs(-3) is 3", changed: []string{"calc/calc_test.go"}, action: state.ActionRefine, weakening: true},
		{name: "the task asks to change it by name", task: "Update TestAbsNeg: it expects the old behaviour", changed: []string{"calc/calc_test.go"}, action: state.ActionProceed},
		{name: "the policy allows test edits", changed: []string{"calc/calc_test.go"}, allow: true, action: state.ActionProceed},
		{name: "another test file edited", changed: []string{"calc/other_test.go"}, action: state.ActionProceed},
		{name: "no test file edited since the start (a skip restored)", action: state.ActionProceed},
		{name: "no diff since the start after the first iteration", changed: []string{"calc/calc_test.go"}, noStart: true, action: state.ActionProceed},
		{name: "the first iteration: its diff is the run's", changed: []string{"calc/calc_test.go"}, noStart: true, n: 1, action: state.ActionRefine, weakening: true},
		{name: "removed as the task asks: no pass to refuse", task: "TestAbsNeg is obsolete: remove TestAbsNeg", changed: []string{"calc/calc_test.go"}, removed: []string{"TestAbsNeg"}, action: state.ActionProceed},
		{name: "still failing: no pass to refuse", changed: []string{"calc/calc_test.go"}, failing: []string{"calc.TestAbsNeg"}, action: state.ActionSimplify},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := gated()
			spec.Told = tt.task
			st := baseline([]string{"calc.TestAbsNeg"})
			st.Baseline[0].Findings[0].File = "calc_test.go"
			n := tt.n
			if n == 0 {
				n = 2
			}
			ev := iter(n, tt.failing...)
			for i := range ev.Gates[0].Findings {
				ev.Gates[0].Findings[i].File = "calc_test.go"
			}
			ev.Diff.Files = tt.changed
			ev.Diff.TestFilesChanged = tt.changed
			ev.Diff.TestsRemoved = tt.removed
			if !tt.noStart {
				ev.Diff.SinceStart = &evidence.DiffFacts{Files: tt.changed, TestFilesChanged: tt.changed, TestsRemoved: tt.removed}
			}
			p := DefaultPolicy()
			p.AllowTestEdits = tt.allow
			d := New(p).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: ev})
			if d.Action != tt.action {
				t.Errorf("%s (%s), want %s", d.Action, d.Message, tt.action)
			}
			if got := strings.Contains(d.Message, why); got != tt.weakening {
				t.Errorf("message %q names the edited test: %v, want %v", d.Message, got, tt.weakening)
			}
		})
	}
}
