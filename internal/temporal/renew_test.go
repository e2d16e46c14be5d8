package temporal

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// TestWorkflowRenews: a run whose workflow continues as new every 2
// iterations, each next one started with what the last carried, ends as
// the run that never does: the same outcome, steps, and state and events
// in its query; each workflow ran 2 iterations (the last, what was left).
func TestWorkflowRenews(t *testing.T) {
	results := []func(int) (evidence.Iteration, error){gate(false, 4), gate(false, 3), gate(false, 2), gate(false, 1), gate(true, 0)}
	// The cost budget cannot be checked (the agent says no cost): told once.
	in := input(budget.Limits{MaxIterations: 10, FailureThreshold: 5, MaxCostUSD: 5}, true)

	once := &script{results: results, checkpoints: true}
	env := newEnv(t, once)
	env.ExecuteWorkflow(WorkflowRun, in)
	want := result(t, env)
	wantView := queryView(t, env)

	renewed := &script{results: results, checkpoints: true}
	in.RenewEvery = 2
	var got loop.Outcome
	var gotView View
	runs := 0
	for {
		runs++
		env := newEnv(t, renewed)
		env.ExecuteWorkflow(WorkflowRun, in)
		if !env.IsWorkflowCompleted() {
			t.Fatal("the workflow did not complete")
		}
		werr := env.GetWorkflowError()
		if can, ok := errors.AsType[*workflow.ContinueAsNewError](werr); ok {
			in = RunInput{}
			if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &in); err != nil {
				t.Fatal(err)
			}
			if in.Renewed == nil || in.State.History != nil {
				t.Fatalf("run %d continued with %+v: want what it carried, its records in it", runs, in.Renewed)
			}
			continue
		}
		got, gotView = result(t, env), queryView(t, env)
		break
	}
	if runs != 3 {
		t.Errorf("%d workflows, want 3 (continued at 2 and 4 iterations)", runs)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcome (-never renewed +renewed):\n%s", diff)
	}
	if diff := cmp.Diff(once.requests, renewed.requests); diff != "" {
		t.Errorf("steps (-never renewed +renewed):\n%s", diff)
	}
	if diff := cmp.Diff(once.lasts, renewed.lasts); diff != "" {
		t.Errorf("steps' last checkpoints (-never renewed +renewed):\n%s", diff)
	}
	if diff := cmp.Diff(once.keeps, renewed.keeps); diff != "" {
		t.Errorf("steps' files (-never renewed +renewed):\n%s", diff)
	}
	// The test environment's clock is the machine's: the times differ.
	noTime := cmp.Options{cmpopts.IgnoreFields(state.Event{}, "Time"), cmpopts.IgnoreFields(state.Session{}, "EndedAt")}
	if diff := cmp.Diff(wantView, gotView, noTime); diff != "" {
		t.Errorf("query (-never renewed +renewed):\n%s", diff)
	}
}
