package decide

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// The task decides which failures are the run's: with a task text, a test
// that failed before the run, that the task does not name, whose file the
// agent did not touch and whose message did not change is reported as
// pre-existing and does not stop a success; one the task names, one the
// agent touched or made worse, a new failure, or any failure without a task
// text, does.
func TestOutsideTask(t *testing.T) {
	t.Parallel()
	const remote = "CALC_TOKEN is not set: this test needs credentials"
	remoteFails := func(msg, file string) evidence.Finding {
		return evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestRemote", Key: "TEST|go|calc.TestRemote", File: file, Message: msg}
	}
	tests := []struct {
		name    string
		task    string
		msg     string   // TestRemote's message now
		changed []string // files changed since the run's start
		more    []string // other failing tests now
		action  state.Action
		aside   bool
	}{
		{name: "outside the task, untouched, the same: succeeds", task: "Fix TestAdd: Add returns the wrong sum", msg: remote, changed: []string{"calc/calc.go"}, action: state.ActionProceed, aside: true},
		{name: "no task text: every failure is the task", task: "", msg: remote, changed: []string{"calc/calc.go"}, action: state.ActionRefine},
		{name: "a task that names no failing test: every failure is the task", task: "Make the tests of package calc pass", msg: remote, changed: []string{"calc/calc.go"}, action: state.ActionRefine},
		{name: "the task names it", task: "Fix TestAdd and TestRemote", msg: remote, changed: []string{"calc/calc.go"}, action: state.ActionRefine},
		{name: "the task names it with its package", task: "Make calc.TestRemote pass", msg: remote, changed: []string{"calc/calc.go"}, action: state.ActionRefine},
		{name: "the task names its file", task: "Fix what remote_test.go checks", msg: remote, changed: []string{"calc/calc.go"}, action: state.ActionRefine},
		{name: "a test whose name only begins the same is not named", task: "Fix TestAdd like TestRemoteOld", msg: remote, changed: []string{"calc/calc.go"}, action: state.ActionProceed, aside: true},
		{name: "the agent touched its file", task: "Fix TestAdd", msg: remote, changed: []string{"calc/calc.go", "calc/remote_test.go"}, action: state.ActionRefine},
		{name: "made worse: its message changed", task: "Fix TestAdd", msg: "panic: nil map", changed: []string{"calc/calc.go"}, action: state.ActionRefine},
		{name: "a new failure stops the success", task: "Fix TestAdd", msg: remote, changed: []string{"calc/calc.go"}, more: []string{"calc.TestSub"}, action: state.ActionRefine, aside: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := gated()
			spec.Told = tt.task
			st := baseline([]string{"calc.TestAdd"})
			st.Baseline[0].Findings = append(st.Baseline[0].Findings, remoteFails(remote, "remote_test.go"))
			ev := iter(1, tt.more...)
			g := &ev.Gates[0]
			for i := range g.Findings {
				g.Findings[i].Key = "test:" + g.Findings[i].ID
			}
			g.Preexisting = []evidence.Finding{remoteFails(tt.msg, "remote_test.go")}
			g.Passed = false
			ev.Diff.SinceStart = &evidence.DiffFacts{Files: tt.changed}
			d := New(DefaultPolicy()).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: ev})
			if d.Action != tt.action {
				t.Errorf("%s (%s), want %s", d.Action, d.Message, tt.action)
			}
			if got := slices.Contains(d.OutsideTask, "TEST|go|calc.TestRemote"); got != tt.aside {
				t.Errorf("outside the task %v, want TestRemote there: %v", d.OutsideTask, tt.aside)
			}
			if tt.aside && slices.Contains(d.Failing, "TEST|go|calc.TestRemote") {
				t.Errorf("failing %v counts TestRemote", d.Failing)
			}
			if tt.action == state.ActionProceed && !strings.Contains(d.Message, "failing before the run, outside the task: calc.TestRemote") {
				t.Errorf("message %q does not report it", d.Message)
			}
		})
	}
}

// SetAside is the one rule an engine asks before the review and the decider
// applies after it: the gates pass once the failures outside the task are set
// aside exactly when the decider, given the reviewer's approval, ends the run
// a success. A failure the agent brought in, one it touched, a run told no
// task or one with no baseline leave the gate failed, and the reviewer
// unasked.
func TestSetAside(t *testing.T) {
	t.Parallel()
	const remote = "CALC_TOKEN is not set: this test needs credentials"
	remoteFails := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestRemote", Key: "TEST|go|calc.TestRemote", File: "remote_test.go", Message: remote}
	tests := []struct {
		name     string
		task     string
		noBase   bool     // no baseline ran
		changed  []string // files changed since the run's start
		more     []string // other failing tests now, new
		infra    bool     // the gate could not run
		optional bool     // the gate is optional
		aside    []string
		passes   bool
	}{
		{name: "only a failure outside the task: the gate passes", task: "Fix TestAdd", changed: []string{"calc/calc.go"}, aside: []string{"TEST|go|calc.TestRemote"}, passes: true},
		{name: "and a failure the agent brought in: the gate fails", task: "Fix TestAdd", changed: []string{"calc/calc.go"}, more: []string{"calc.TestSub"}, aside: []string{"TEST|go|calc.TestRemote"}},
		{name: "told no task: the failure is the run's", changed: []string{"calc/calc.go"}},
		{name: "no baseline ran: the failure is the run's", task: "Fix TestAdd", noBase: true, changed: []string{"calc/calc.go"}},
		{name: "the agent touched its file: the failure is the run's", task: "Fix TestAdd", changed: []string{"calc/calc.go", "calc/remote_test.go"}},
		{name: "a gate that could not run is not judged", task: "Fix TestAdd", changed: []string{"calc/calc.go"}, infra: true},
		{name: "an optional gate's failure outside the task is set aside too", task: "Fix TestAdd", changed: []string{"calc/calc.go"}, optional: true, aside: []string{"TEST|go|calc.TestRemote"}, passes: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := baseline([]string{"calc.TestAdd"})
			st.Baseline[0].Findings = append(st.Baseline[0].Findings, remoteFails)
			if tt.noBase {
				st = baseline(nil)
			}
			ev := iter(1, tt.more...)
			g := &ev.Gates[0]
			g.Preexisting, g.Passed, g.Infra, g.Required = []evidence.Finding{remoteFails}, false, tt.infra, !tt.optional
			ev.Diff.SinceStart = &evidence.DiffFacts{Files: tt.changed}
			ev.Review = &evidence.Review{Verdict: evidence.VerdictApprove, Score: 9}

			judged, aside := SetAside(tt.task, st.Baseline, ev)
			if !slices.Equal(aside, tt.aside) {
				t.Errorf("set aside %v, want %v", aside, tt.aside)
			}
			if got := judged.RequiredGatesPassed() && !judged.Gates[0].Infra; got != tt.passes {
				t.Errorf("the gates pass once set aside: %v, want %v", got, tt.passes)
			}
			if ev.Gates[0].Passed || len(ev.Gates[0].Preexisting) != 1 {
				t.Error("SetAside changed the iteration it was given")
			}
			spec := reviewed()
			spec.Told = tt.task
			d := New(DefaultPolicy()).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: ev})
			if !slices.Equal(d.OutsideTask, tt.aside) {
				t.Errorf("the decider set aside %v, SetAside %v", d.OutsideTask, tt.aside)
			}
			if ok := d.Action == state.ActionProceed; ok != tt.passes {
				t.Errorf("the decider %s (%s) on an approval; the gates pass once set aside: %v", d.Action, d.Message, tt.passes)
			}
		})
	}
}
