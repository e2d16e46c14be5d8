package temporal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
)

// noKeep stands in for the keep activity where the files do not matter.
func noKeep(context.Context, KeepInput) error { return nil }

// TestWorkflowKeepsTheRunFiles: the run's files are handed to the keep
// activity: each decision, the escalation before the run waits, and the
// guidance given as an architecture decision.
func TestWorkflowKeepsTheRunFiles(t *testing.T) {
	s := &script{results: []func(int) (evidence.Iteration, error){gate(false, 1), gate(true, 0)}}
	env := newEnv(t, s)
	var kept []KeepInput
	env.RegisterActivityWithOptions(func(_ context.Context, in KeepInput) error {
		kept = append(kept, in)
		return nil
	}, activity.RegisterOptions{Name: ActivityKeep, DisableAlreadyRegisteredCheck: true})
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateGuidance, "g", &updateResult{}, Guidance{Text: "Keep userId a string", Architecture: true})
	}, time.Hour)
	env.ExecuteWorkflow(WorkflowRun, input(budget.Limits{MaxIterations: 1, FailureThreshold: 5}, true))
	if out := result(t, env); out.Status != loop.StatusSucceeded {
		t.Fatalf("outcome %s %q, want succeeded", out.Status, out.Reason)
	}
	var decisions, escalations, adrs int
	for _, k := range kept {
		switch {
		case k.Artifacts != nil && k.Artifacts.Decision != nil:
			decisions++
		case k.Escalation != nil:
			escalations++
			if !strings.Contains(k.Escalation.Reason, "max iterations") {
				t.Errorf("escalation %q, want the run's reason", k.Escalation.Reason)
			}
		case k.ADR != nil:
			adrs++
			if k.ADR.Guidance != "Keep userId a string" || k.ADR.State.Name != "build" {
				t.Errorf("ADR %+v, want the guidance of run build", k.ADR)
			}
		}
		if k.Run.Name != "build" {
			t.Errorf("kept for run %q, want build", k.Run.Name)
		}
	}
	if decisions != 2 || escalations != 1 || adrs != 1 {
		t.Errorf("kept %d decisions, %d escalations, %d ADRs; want 2, 1, 1 (%+v)", decisions, escalations, adrs, kept)
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
	st := loop.State{Name: "build", RunID: "r1", Reason: "max iterations reached", TotalIterations: 2}
	for _, in := range []KeepInput{
		{Run: run, Artifacts: &loop.Artifacts{Iteration: 2, Feedback: "tests still fail"}},
		{Run: run, Escalation: &loop.Escalation{Reason: "max iterations reached", Question: "What now?"}},
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
