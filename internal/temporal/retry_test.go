package temporal

import (
	"context"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
)

// TestLostWorkersAreNotTheAgents: a step whose worker misses its heartbeat
// eight times in a row (a loaded machine, a worker lost and replaced) is run
// again each time, with backoff, until one attempt ends: the run goes on to
// its end with each iteration counted once, nothing aborted or failed.
func TestLostWorkersAreNotTheAgents(t *testing.T) {
	s := &script{results: []func(int) (evidence.Iteration, error){gate(false, 1), gate(true, 0)}}
	env := newEnv(t, s)
	lost := 0
	env.RegisterActivityWithOptions(func(ctx context.Context, in StepInput) (loop.StepResult, error) {
		if in.Request.Kind == loop.StepIteration && in.Request.Iteration == 1 && activity.GetInfo(ctx).Attempt <= 8 {
			lost++
			return loop.StepResult{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil)
		}
		return s.step(ctx, in)
	}, activity.RegisterOptions{Name: ActivityStep})
	env.ExecuteWorkflow(WorkflowRun, input(budget.Limits{MaxIterations: 3, FailureThreshold: 3}, true))
	out := result(t, env)
	if out.Status != loop.StatusSucceeded || lost != 8 {
		t.Errorf("run %s (%s) after %d lost attempts; want succeeded after 8", out.Status, out.Reason, lost)
	}
	var v View
	if q, err := env.QueryWorkflow(QueryState); err != nil || q.Get(&v) != nil {
		t.Fatalf("query: %v", err)
	}
	if v.State.TotalIterations != 2 {
		t.Errorf("%d iterations, want 2: the lost attempts are not iterations", v.State.TotalIterations)
	}
}
