package temporal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
)

// noKeep stands in for the keep activity where the files do not matter.
func noKeep(context.Context, KeepInput) error { return nil }

// TestWorkflowKeepsTheRunFiles: the run's files are written on the worker
// holding the run: each decision with the run's next step, or, when none
// comes first, with the escalation before the run waits, or by a keep
// activity as the run ends; the guidance given as an architecture decision
// by a keep activity.
func TestWorkflowKeepsTheRunFiles(t *testing.T) {
	for _, tc := range []struct {
		name                                    string
		limits                                  budget.Limits
		results                                 []func(int) (evidence.Iteration, error)
		guide                                   bool
		decisions, withSteps, escalations, adrs int
		activities                              int
	}{
		{name: "escalated and guided", limits: budget.Limits{MaxIterations: 1, FailureThreshold: 5},
			results: []func(int) (evidence.Iteration, error){gate(false, 1), gate(true, 0)}, guide: true,
			// the first decision with the escalation, the ADR, the last decision as the run ends
			decisions: 2, escalations: 1, adrs: 1, activities: 3},
		{name: "three iterations", limits: budget.Limits{MaxIterations: 3, FailureThreshold: 5},
			results: []func(int) (evidence.Iteration, error){gate(false, 2), gate(false, 1), gate(true, 0)},
			// two decisions with the next steps, the last as the run ends
			decisions: 3, withSteps: 2, activities: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{results: tc.results}
			env := newEnv(t, s)
			var kept []KeepInput
			env.RegisterActivityWithOptions(func(_ context.Context, in KeepInput) error {
				kept = append(kept, in)
				return nil
			}, activity.RegisterOptions{Name: ActivityKeep, DisableAlreadyRegisteredCheck: true})
			if tc.guide {
				env.RegisterDelayedCallback(func() {
					env.UpdateWorkflow(UpdateGuidance, "g", &updateResult{}, Guidance{Text: "Keep userId a string", Architecture: true})
				}, time.Hour)
			}
			env.ExecuteWorkflow(WorkflowRun, input(tc.limits, true))
			if out := result(t, env); out.Status == state.StatusAborted {
				t.Fatalf("outcome %s %q", out.Status, out.Reason)
			}
			var decisions, withSteps, escalations, adrs int
			for i, k := range s.keeps {
				if k == nil {
					continue
				}
				if k.Decision == nil || k.Iteration != s.requests[i].Iteration-1 {
					t.Errorf("step %d (iteration %d) carried the files of iteration %d (decision %v), want the one before's decision", i, s.requests[i].Iteration, k.Iteration, k.Decision != nil)
				}
				decisions++
				withSteps++
			}
			for _, k := range kept {
				if k.Artifacts != nil && k.Artifacts.Decision != nil {
					decisions++
				}
				if k.Escalation != nil {
					escalations++
					if !strings.Contains(k.Escalation.Reason, "max iterations") {
						t.Errorf("escalation %q, want the run's reason", k.Escalation.Reason)
					}
				}
				if k.ADR != nil {
					adrs++
					if k.ADR.Guidance != "Keep userId a string" || k.ADR.State.Name != "build" {
						t.Errorf("ADR %+v, want the guidance of run build", k.ADR)
					}
				}
				if k.Run.Name != "build" {
					t.Errorf("kept for run %q, want build", k.Run.Name)
				}
			}
			if decisions != tc.decisions || withSteps != tc.withSteps || escalations != tc.escalations || adrs != tc.adrs || len(kept) != tc.activities {
				t.Errorf("kept %d decisions (%d with a step), %d escalations, %d ADRs in %d keep activities; want %d (%d), %d, %d in %d (%+v)",
					decisions, withSteps, escalations, adrs, len(kept), tc.decisions, tc.withSteps, tc.escalations, tc.adrs, tc.activities, kept)
			}
		})
	}
}

// TestKeepActivityWritesTheFiles: the keep activity writes the files where a
// local run writes them: iter-NNN/ and the escalation in the run folder, the
// ADR under docs/adr/ of the work tree.
func TestKeepActivityWritesTheFiles(t *testing.T) {
	dir := t.TempDir()
	steps := &Steps{Log: testLogger(), Plan: func(_ context.Context, r RunRef) (*plan.Plan, error) {
		return &plan.Plan{Name: r.Name, WorkDir: r.WorkDir, StateDir: filepath.Join(r.WorkDir, ".agentloop"), Proc: config.Procedure{Name: "build"}}, nil
	}}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(steps.Keep, activity.RegisterOptions{Name: ActivityKeep})
	run := RunRef{Name: "build", RunID: "r1", Procedure: "build", WorkDir: dir}
	st := state.State{Name: "build", RunID: "r1", Reason: "max iterations reached", TotalIterations: 2}
	for _, in := range []KeepInput{
		{Run: run, Artifacts: &state.Artifacts{Iteration: 2, Feedback: "tests still fail"}},
		{Run: run, Escalation: &state.Escalation{Reason: "max iterations reached", Question: "What now?"}},
		{Run: run, ADR: &ADR{State: st, Guidance: "Keep userId a string"}},
	} {
		if _, err := env.ExecuteActivity(ActivityKeep, in); err != nil {
			t.Fatalf("keep %+v: %v", in, err)
		}
	}
	runDir := filepath.Join(dir, ".agentloop", "runs", "build", "r1")
	for path, want := range map[string]string{
		filepath.Join(runDir, "iter-002", "feedback.md"): "tests still fail",
		filepath.Join(runDir, "escalation-001.md"):       "What now?",
	} {
		if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: %q, %v; want %q in it", path, b, err, want)
		}
	}
	adrs, _ := filepath.Glob(filepath.Join(dir, "docs", "adr", "0001-*.md"))
	if len(adrs) != 1 {
		t.Fatalf("ADRs %v, want one", adrs)
	}
	if b, _ := os.ReadFile(adrs[0]); !strings.Contains(string(b), "Keep userId a string") {
		t.Errorf("ADR:\n%s\nwant the guidance", b)
	}
}

// TestStepWritesTheLastIterationsFiles: a step given the files of the run's
// last iteration writes them in the run folder before its agent runs.
func TestStepWritesTheLastIterationsFiles(t *testing.T) {
	dir := t.TempDir()
	feedback := filepath.Join(dir, ".agentloop", "runs", "build", "r1", "iter-001", "feedback.md")
	s := &Steps{Log: testLogger(), Plan: planIn(shAgent(t, "cat >/dev/null; cp "+feedback+" seen.txt"))}
	in := StepInput{
		Run:     RunRef{Name: "build", RunID: "r1", Procedure: "build", WorkDir: dir},
		Request: loop.StepRequest{Kind: loop.StepIteration, Iteration: 2, Seq: 2, Attempt: 1, Timeout: time.Minute},
		Keep:    &state.Artifacts{Iteration: 1, Seq: 1, Feedback: "tests still fail"},
	}
	if _, err := stepEnv(s).ExecuteActivity(ActivityStep, in); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{feedback, filepath.Join(dir, "seen.txt")} {
		if b, err := os.ReadFile(path); err != nil || string(b) != "tests still fail" {
			t.Errorf("%s: %q, %v; want the last iteration's feedback, written before the agent ran", path, b, err)
		}
	}
}

// TestWorkflowKeepsTheFilesOfAStepThatDidNotEnd: the files of an iteration
// handed to the next step, which ended in an error (its run stopped) or was
// cancelled with the run, are written by a keep activity as the run ends.
func TestWorkflowKeepsTheFilesOfAStepThatDidNotEnd(t *testing.T) {
	for _, cancel := range []bool{false, true} {
		t.Run(map[bool]string{false: "the step stops the run", true: "the run cancelled"}[cancel], func(t *testing.T) {
			var suite testsuite.WorkflowTestSuite
			env := suite.NewTestWorkflowEnvironment()
			env.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: WorkflowRun})
			env.RegisterActivityWithOptions(func(ctx context.Context, in StepInput) (StepOutput, error) {
				if in.Request.Iteration == 1 {
					ev, _ := gate(false, 1)(1)
					return StepOutput{StepResult: state.StepResult{Iteration: ev}}, nil
				}
				if cancel {
					<-ctx.Done()
					return StepOutput{}, ctx.Err()
				}
				return StepOutput{}, activityError(ctx, &loop.StopError{Status: state.StatusAborted, Reason: "rate limited for 2h"})
			}, activity.RegisterOptions{Name: ActivityStep})
			var kept []KeepInput
			env.RegisterActivityWithOptions(func(_ context.Context, in KeepInput) error {
				kept = append(kept, in)
				return nil
			}, activity.RegisterOptions{Name: ActivityKeep})
			if cancel {
				n := 0
				env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
					if info.ActivityType.Name == ActivityStep {
						if n++; n == 2 {
							env.CancelWorkflow()
						}
					}
				})
			}
			env.ExecuteWorkflow(WorkflowRun, input(budget.Limits{MaxIterations: 3, FailureThreshold: 5}, true))
			if !env.IsWorkflowCompleted() {
				t.Fatal("the workflow did not complete")
			}
			if len(kept) != 1 || kept[0].Artifacts == nil || kept[0].Artifacts.Iteration != 1 || kept[0].Artifacts.Decision == nil {
				t.Errorf("keep activities %+v; want one, with the first iteration's decision", kept)
			}
		})
	}
}

// TestKeepWritesTheEscalationWhenItsIterationsFilesFail: an escalation that
// carries its iteration's files writes its own though those cannot be
// written, and says what failed.
func TestKeepWritesTheEscalationWhenItsIterationsFilesFail(t *testing.T) {
	dir := t.TempDir()
	steps := &Steps{Log: testLogger(), Plan: func(_ context.Context, r RunRef) (*plan.Plan, error) {
		return &plan.Plan{Name: r.Name, WorkDir: r.WorkDir, StateDir: filepath.Join(r.WorkDir, ".agentloop"), Proc: config.Procedure{Name: "build"}}, nil
	}}
	runDir := filepath.Join(dir, ".agentloop", "runs", "build", "r1")
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeIn(t, runDir, "iter-002", "a file where the iteration's folder goes\n")
	err := steps.keepFiles(t.Context(), KeepInput{
		Run:        RunRef{Name: "build", RunID: "r1", Procedure: "build", WorkDir: dir},
		Artifacts:  &state.Artifacts{Iteration: 2, Feedback: "tests still fail"},
		Escalation: &state.Escalation{Reason: "max iterations reached", Question: "What now?"},
	})
	if err == nil || !strings.Contains(err.Error(), "iter-002") {
		t.Errorf("keep: %v, want the iteration's folder named", err)
	}
	if b, err := os.ReadFile(filepath.Join(runDir, "escalation-001.md")); err != nil || !strings.Contains(string(b), "What now?") {
		t.Errorf("the escalation: %q, %v; want it written", b, err)
	}
}
