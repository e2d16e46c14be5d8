package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decide"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// script is a fake step activity: iteration n gets the n-th result (the last
// one again after the end); it records the requests it was given.
type script struct {
	results  []func(n int) (evidence.Iteration, error)
	requests []loop.StepRequest
	lasts    []string           // each request's StepInput.Last
	keeps    []*state.Artifacts // each request's StepInput.Keep
	sizes    []int              // each StepInput's size in JSON, its Keep left out
	// checkpoints: iteration steps end at checkpoint cN, N their count.
	checkpoints bool
	baseline    []evidence.GateResult // what the baseline step finds
}

func (s *script) step(ctx context.Context, in StepInput) (state.StepResult, error) {
	res, err := s.run(in)
	return res, activityError(ctx, err)
}

func (s *script) run(in StepInput) (state.StepResult, error) {
	s.requests = append(s.requests, in.Request)
	s.lasts = append(s.lasts, in.Last)
	s.keeps = append(s.keeps, in.Keep)
	bare := in
	bare.Keep = nil
	b, _ := json.Marshal(bare)
	s.sizes = append(s.sizes, len(b))
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if in.Request.Kind != loop.StepIteration {
		res := state.StepResult{Started: t0, Finished: t0}
		if in.Request.Kind == loop.StepBaseline {
			res.Baseline = s.baseline
		}
		return res, nil
	}
	n := 0
	for _, r := range s.requests {
		if r.Kind == loop.StepIteration {
			n++
		}
	}
	ev, err := s.results[min(n, len(s.results))-1](in.Request.Iteration)
	ev.Started, ev.Finished = t0, t0.Add(time.Second)
	res := state.StepResult{Started: ev.Started, Finished: ev.Finished, Iteration: ev}
	if s.checkpoints {
		res.Checkpoint = fmt.Sprintf("c%d", n)
	}
	return res, err
}

func agentExit(code int) func(int) (evidence.Iteration, error) {
	return func(int) (evidence.Iteration, error) {
		return evidence.Iteration{Agent: evidence.AgentResult{ExitCode: code}}, nil
	}
}

func gate(passed bool, failures int) func(int) (evidence.Iteration, error) {
	return func(int) (evidence.Iteration, error) {
		g := evidence.GateResult{Name: "tests", Required: true, Passed: passed}
		for i := range failures {
			g.Findings = append(g.Findings, evidence.Finding{Kind: evidence.KindTest, Key: "test:T" + string(rune('0'+i))})
		}
		return evidence.Iteration{Gates: []evidence.GateResult{g}}, nil
	}
}

func input(limits budget.Limits, gates bool) RunInput {
	return RunInput{
		Run:    RunRef{Name: "build", RunID: "r1", Procedure: "default"},
		Limits: limits, HasGates: gates, Policy: decide.DefaultPolicy(),
		State: state.State{Version: state.StateVersion, Name: "build", RunID: "r1", Status: state.StatusRunning, Sessions: []state.Session{{}}},
	}
}

func newEnv(t *testing.T, s *script) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(tlog.NewStructuredLogger(testLogger()))
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: WorkflowRun})
	env.RegisterActivityWithOptions(s.step, activity.RegisterOptions{Name: ActivityStep})
	env.RegisterActivityWithOptions(noKeep, activity.RegisterOptions{Name: ActivityKeep})
	return env
}

func result(t *testing.T, env *testsuite.TestWorkflowEnvironment) loop.Outcome {
	t.Helper()
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	var out loop.Outcome
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWorkflowRunsTheLoop(t *testing.T) {
	tests := []struct {
		name       string
		in         RunInput
		results    []func(int) (evidence.Iteration, error)
		wantStatus state.Status
		wantReason string
		wantSteps  int
		wantIters  int
	}{
		{
			name: "a plain loop runs to its limit", in: input(budget.Limits{MaxIterations: 3, FailureThreshold: 3}, false),
			results:    []func(int) (evidence.Iteration, error){agentExit(0)},
			wantStatus: state.StatusCompleted, wantReason: "max iterations reached (3)", wantSteps: 3, wantIters: 3,
		},
		{
			name: "failures abort", in: input(budget.Limits{MaxIterations: 10, FailureThreshold: 2}, false),
			results:    []func(int) (evidence.Iteration, error){agentExit(1)},
			wantStatus: state.StatusAborted, wantReason: "agent failed: exit 1; consecutive failures: 2/2", wantSteps: 2, wantIters: 2,
		},
		{
			name: "green gates succeed", in: input(budget.Limits{MaxIterations: 5, FailureThreshold: 3}, true),
			results:    []func(int) (evidence.Iteration, error){gate(false, 2), gate(false, 1), gate(true, 0)},
			wantStatus: state.StatusSucceeded, wantReason: "all required gates passed", wantSteps: 3, wantIters: 3,
		},
		{
			name: "a stop asked for by a step ends the run", in: input(budget.Limits{MaxIterations: 5}, false),
			results: []func(int) (evidence.Iteration, error){func(int) (evidence.Iteration, error) {
				return evidence.Iteration{}, &loop.StopError{Status: state.StatusAborted, Reason: "rate limited for 2h"}
			}},
			wantStatus: state.StatusAborted, wantReason: "rate limited for 2h", wantSteps: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{results: tt.results}
			env := newEnv(t, s)
			env.ExecuteWorkflow(WorkflowRun, tt.in)
			out := result(t, env)
			if out.Status != tt.wantStatus || out.Reason != tt.wantReason {
				t.Errorf("outcome = %s %q, want %s %q", out.Status, out.Reason, tt.wantStatus, tt.wantReason)
			}
			if len(s.requests) != tt.wantSteps {
				t.Errorf("%d steps, want %d", len(s.requests), tt.wantSteps)
			}
			v := queryView(t, env)
			if v.State.Status != tt.wantStatus || len(v.State.History) != tt.wantIters {
				t.Errorf("queried state %s with %d iterations, want %s with %d", v.State.Status, len(v.State.History), tt.wantStatus, tt.wantIters)
			}
			if n := len(v.Events); n == 0 || v.Events[n-1].Type() != state.EventRunFinished {
				t.Errorf("events %v: want them to end with run_finished", v.Events)
			}
		})
	}
}

// TestWorkflowSetsAsideOutsideTheTask: the workflow's decider is told the
// task as the run was, as a local run's is. TestRemote failed before the
// run, the task names only TestAdd, and it fails the same way after: the
// run succeeds with it reported apart, and each iteration's step is told
// the task (its engine asks the reviewer by the same rule). Told nothing,
// the workflow's run did not succeed.
func TestWorkflowSetsAsideOutsideTheTask(t *testing.T) {
	remote := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestRemote", File: "remote_test.go", Message: "CALC_TOKEN is not set"}
	add := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestAdd", File: "calc_test.go", Message: "Add(2, 3) = -1, want 5"}
	s := &script{
		baseline: []evidence.GateResult{{Name: "tests", Required: true, Findings: []evidence.Finding{add, remote}}},
		results: []func(int) (evidence.Iteration, error){func(int) (evidence.Iteration, error) {
			g := evidence.GateResult{Name: "tests", Required: true, Preexisting: []evidence.Finding{remote}, Fixed: []string{"TEST|go|calc.TestAdd"}}
			return evidence.Iteration{Gates: []evidence.GateResult{g}, Diff: evidence.DiffFacts{Files: []string{"calc.go"}, Added: 1, Deleted: 1}}, nil
		}},
	}
	env := newEnv(t, s)
	in := input(budget.Limits{MaxIterations: 3, FailureThreshold: 3}, true)
	in.Baseline, in.Told = true, "Fix TestAdd: Add returns the wrong sum."
	env.ExecuteWorkflow(WorkflowRun, in)
	out := result(t, env)
	if want := "all required gates passed; failing before the run, outside the task: calc.TestRemote"; out.Status != state.StatusSucceeded || out.Reason != want {
		t.Errorf("outcome = %s %q, want %s %q", out.Status, out.Reason, state.StatusSucceeded, want)
	}
	for _, r := range s.requests {
		if r.Kind == loop.StepIteration && r.Told != in.Told {
			t.Errorf("iteration %d's step was told the task %q, want %q", r.Iteration, r.Told, in.Told)
		}
	}
}

// TestWorkflowStepsStartFromTheRolledBackTree: after a regression rolls the
// work tree back to the best checkpoint, the next step is told that one as
// the run's last checkpoint, which a worker rebuilding the work tree
// restores (not the discarded iteration's).
func TestWorkflowStepsStartFromTheRolledBackTree(t *testing.T) {
	tests := func(failed int) func(int) (evidence.Iteration, error) {
		return func(n int) (evidence.Iteration, error) {
			ev, err := gate(failed == 0, failed)(n)
			ev.Gates[0].Tests = evidence.TestCounts{Passed: 10 - failed, Failed: failed}
			return ev, err
		}
	}
	s := &script{results: []func(int) (evidence.Iteration, error){tests(1), tests(6), tests(0)}, checkpoints: true}
	env := newEnv(t, s)
	env.ExecuteWorkflow(WorkflowRun, input(budget.Limits{MaxIterations: 3, FailureThreshold: 5}, true))
	result(t, env)
	var kinds []string
	rolledBack := false
	for i, r := range s.requests {
		kinds = append(kinds, fmt.Sprintf("%s(last %q)", r.Kind, s.lasts[i]))
		if r.Kind == loop.StepRollback && r.Checkpoint == "c1" {
			rolledBack = true
			if i+1 >= len(s.requests) || s.requests[i+1].Kind != loop.StepIteration {
				t.Fatalf("steps %v: no iteration after the rollback", kinds)
			}
			if got := s.lasts[i+1]; got != "c1" {
				t.Errorf("the iteration after the rollback to c1 was told the last checkpoint %q, want c1", got)
			}
		}
	}
	if !rolledBack {
		t.Fatalf("steps %v: no rollback to c1 after the regression", kinds)
	}
}

func queryView(t *testing.T, env *testsuite.TestWorkflowEnvironment) View {
	t.Helper()
	enc, err := env.QueryWorkflow(QueryState)
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	var v View
	if err := enc.Get(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

type updateResult struct{ err error }

func (u *updateResult) Accept()          {}
func (u *updateResult) Reject(err error) { u.err = err }
func (u *updateResult) Complete(_ any, err error) {
	if err != nil {
		u.err = err
	}
}

// TestWorkflowWaitsForGuidance: an escalation waits for the update; an answer
// that is empty, or one sent while the run is not waiting, is refused with an
// error the caller sees; a valid one restarts the iteration counter and goes
// into the next prompt, and its floor of later rollbacks is the run's.
func TestWorkflowWaitsForGuidance(t *testing.T) {
	s := &script{results: []func(int) (evidence.Iteration, error){gate(false, 2), gate(false, 2), gate(true, 0)}}
	env := newEnv(t, s)
	early, empty, good := &updateResult{}, &updateResult{}, &updateResult{}
	var waiting View
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateGuidance, "early", early, Guidance{Text: "too soon"})
	}, 0)
	env.RegisterDelayedCallback(func() {
		waiting = queryView(t, env)
		env.UpdateWorkflow(UpdateGuidance, "empty", empty, Guidance{Text: "  "})
		env.UpdateWorkflow(UpdateGuidance, "good", good, Guidance{Text: "Keep userId a string", Architecture: true, Floor: 2})
	}, time.Hour)
	env.ExecuteWorkflow(WorkflowRun, input(budget.Limits{MaxIterations: 2, FailureThreshold: 5}, true))
	out := result(t, env)
	if out.Status != state.StatusSucceeded {
		t.Errorf("outcome %s %q, want succeeded", out.Status, out.Reason)
	}
	if early.err == nil || !strings.Contains(early.err.Error(), "not waiting") {
		t.Errorf("guidance before the escalation: %v, want refused as not waiting", early.err)
	}
	if empty.err == nil || !strings.Contains(empty.err.Error(), "empty") {
		t.Errorf("empty guidance: %v, want refused as empty", empty.err)
	}
	if good.err != nil {
		t.Errorf("guidance: %v", good.err)
	}
	if !waiting.Waiting || waiting.State.Status != state.StatusEscalated || !strings.Contains(waiting.Escalation, "max iterations reached") {
		t.Errorf("while waiting: waiting=%v status %s escalation %q", waiting.Waiting, waiting.State.Status, waiting.Escalation)
	}
	if len(s.requests) != 3 || s.requests[2].Guidance != "Keep userId a string" || s.requests[2].Iteration != 1 {
		t.Errorf("requests %+v: want a third iteration numbered 1 with the guidance", s.requests)
	}
	v := queryView(t, env)
	var got bool
	for _, ev := range v.Events {
		if g, ok := ev.Data.(state.GuidanceReceived); ok && g.Architecture {
			got = true
		}
	}
	if !got {
		t.Error("no guidance_received event with the architecture flag")
	}
	if v.State.Floor != 2 {
		t.Errorf("floor %d, want 2: the answer's resume rule (the person's tree held edits) bounds later rollbacks", v.State.Floor)
	}
}

// TestWorkflowSettles: a run waiting for guidance shows the command of each
// option of its escalation with --engine temporal and the server flags it was
// started with; --accept through the update restores its best checkpoint on
// its worker and ends it completed, --abort ends it aborted, as the local
// resume does; an answer that is both, or accept with a text, is refused.
func TestWorkflowSettles(t *testing.T) {
	for _, tt := range []struct {
		name       string
		answer     Guidance
		wantStatus state.Status
		wantReason string
		restore    string // the checkpoint restored, "" for none
	}{
		{name: "accept", answer: Guidance{Accept: true}, wantStatus: state.StatusCompleted,
			wantReason: "you accepted the best checkpoint (iteration 1, cp-best), the work tree is at cp-best", restore: "cp-best"},
		{name: "abort", answer: Guidance{Abort: true}, wantStatus: state.StatusAborted, wantReason: "aborted by you after the escalation, the work tree is at cp-best"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{results: []func(int) (evidence.Iteration, error){gate(false, 3), gate(false, 1)}}
			env := newEnv(t, s)
			both, textToo, answer := &updateResult{}, &updateResult{}, &updateResult{}
			var waiting View
			before := 0 // the steps before the answer
			env.RegisterDelayedCallback(func() {
				waiting, before = queryView(t, env), len(s.requests)
				env.UpdateWorkflow(UpdateGuidance, "both", both, Guidance{Accept: true, Abort: true})
				env.UpdateWorkflow(UpdateGuidance, "text", textToo, Guidance{Accept: true, Text: "and this"})
				env.UpdateWorkflow(UpdateGuidance, "answer", answer, tt.answer)
			}, time.Hour)
			in := input(budget.Limits{MaxIterations: 2, FailureThreshold: 5}, true)
			in.ServerFlags = "--temporal-address=h:1"
			in.State.Best = &state.Checkpoint{Iteration: 1, Quality: 2, Ref: "cp-best"} // of an earlier session
			env.ExecuteWorkflow(WorkflowRun, in)
			out := result(t, env)
			if out.Status != tt.wantStatus || out.Reason != tt.wantReason {
				t.Errorf("outcome %s %q, want %s %q", out.Status, out.Reason, tt.wantStatus, tt.wantReason)
			}
			for _, cmd := range []string{`agentloop resume build --guidance "..." --engine temporal --temporal-address=h:1`, "agentloop resume build --abort --engine temporal --temporal-address=h:1"} {
				if !strings.Contains(waiting.Escalation, "`"+cmd+"`") {
					t.Errorf("escalation while waiting: no command %q in\n%s", cmd, waiting.Escalation)
				}
			}
			for name, u := range map[string]*updateResult{"accept and abort": both, "accept with a text": textToo} {
				if u.err == nil {
					t.Errorf("%s: accepted, want refused", name)
				}
			}
			if answer.err != nil {
				t.Errorf("answer: %v", answer.err)
			}
			var after []loop.StepRequest // the steps after the answer: a restore of the best checkpoint, or none
			if tt.restore != "" {
				after = []loop.StepRequest{{Kind: loop.StepRollback, Iteration: 2, Seq: 2, Checkpoint: tt.restore, Expect: "cp-best", Why: "accept the best checkpoint"}}
			}
			if got := s.requests[before:]; !reflect.DeepEqual(got, after) && len(got)+len(after) > 0 {
				t.Errorf("steps after the answer %+v, want %+v", got, after)
			}
			v := queryView(t, env)
			if v.Waiting || v.State.Status != tt.wantStatus || v.Escalation != waiting.Escalation {
				t.Errorf("after: waiting=%v status %s escalation %q; want the answered escalation kept, as a local run keeps escalation.md", v.Waiting, v.State.Status, v.Escalation)
			}
			if n := len(v.Events); n == 0 || v.Events[n-1].Type() != state.EventRunFinished {
				t.Errorf("events %v: want them to end with run_finished", v.Events)
			}
		})
	}
}

// TestStepErrorKeepsTheStop: a stop asked for by a step crosses the activity
// boundary as the loop's StopError.
func TestStepErrorKeepsTheStop(t *testing.T) {
	want := &loop.StopError{Status: state.StatusAborted, Reason: "agent cannot start", Err: errors.New("claude: not logged in")}
	s := &script{results: []func(int) (evidence.Iteration, error){func(int) (evidence.Iteration, error) { return evidence.Iteration{}, want }}}
	env := newEnv(t, s)
	env.ExecuteWorkflow(WorkflowRun, input(budget.Limits{MaxIterations: 2}, false))
	if !env.IsWorkflowCompleted() {
		t.Fatal("not completed")
	}
	err := env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "claude: not logged in") {
		t.Errorf("workflow error %v, want the step's cause", err)
	}
}

func testLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestWorkflowStepInputStaysFlat: a step's input does not grow with the
// run: it carries the step (an iteration's feedback made by the loop in the
// workflow), not the run's history, which the worker never read. With the
// history in it, a run's workflow history grew with the square of its
// iterations (200: 6 MB). Each iteration is still told the feedback of the
// one before, the gates' failures by name.
func TestWorkflowStepInputStaysFlat(t *testing.T) {
	fails := func(i int) (evidence.Iteration, error) {
		g := evidence.GateResult{Name: "tests", Required: true, Findings: []evidence.Finding{
			{Kind: evidence.KindTest, Tool: "go", ID: fmt.Sprintf("calc.TestAdd%d", i), File: "calc_test.go", Message: "Add(2, 3) = -1, want 5"},
		}}
		return evidence.Iteration{Gates: []evidence.GateResult{g}, Diff: evidence.DiffFacts{Files: []string{"calc.go"}, Added: 1}}, nil
	}
	s := &script{results: []func(int) (evidence.Iteration, error){fails}}
	env := newEnv(t, s)
	in := input(budget.Limits{MaxIterations: 40, FailureThreshold: 100}, true)
	in.Policy.Patience, in.Policy.StuckRepeats, in.Policy.MaxRefinePerAttempt = 1000, 1000, 1000
	env.ExecuteWorkflow(WorkflowRun, in) // it escalates at its limit, and waits
	var sizes []int
	for i, r := range s.requests {
		if r.Kind != loop.StepIteration {
			continue
		}
		sizes = append(sizes, s.sizes[i])
		if r.Iteration > 1 && !strings.Contains(r.Feedback, fmt.Sprintf("calc.TestAdd%d", r.Iteration-1)) {
			t.Errorf("iteration %d's feedback %q: want the failure of the one before", r.Iteration, r.Feedback)
		}
	}
	if len(sizes) < 20 {
		t.Fatalf("%d iterations; want 20 or more to see the input grow", len(sizes))
	}
	if first, last := sizes[1], sizes[len(sizes)-1]; last > first+200 {
		t.Errorf("the step input of iteration %d is %d bytes, of iteration 2 %d: it grows with the run", len(sizes), last, first)
	}
}
