package temporal

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// TestLostWorkersAreNotTheAgents: a step whose worker misses its heartbeat
// eight times in a row (a loaded machine, a worker lost and replaced) is run
// again each time, with backoff, until one attempt ends: the run goes on to
// its end with each iteration counted once, nothing aborted or failed.
func TestLostWorkersAreNotTheAgents(t *testing.T) {
	s := &script{results: []func(int) (evidence.Iteration, error){gate(false, 1), gate(true, 0)}}
	env := newEnv(t, s)
	lost := 0
	env.RegisterActivityWithOptions(func(ctx context.Context, in StepInput) (state.StepResult, error) {
		if in.Request.Kind == loop.StepIteration && in.Request.Iteration == 1 && activity.GetInfo(ctx).Attempt <= 8 {
			lost++
			return state.StepResult{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil)
		}
		return s.step(ctx, in)
	}, activity.RegisterOptions{Name: ActivityStep})
	env.ExecuteWorkflow(WorkflowRun, input(budget.Limits{MaxIterations: 3, FailureThreshold: 3}, true))
	out := result(t, env)
	if out.Status != state.StatusSucceeded || lost != 8 {
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

// TestGraphActivitiesOutlastLostWorkers: a task's worktree whose attempts
// time out eight times (its workers lost one after another) and a commit
// whose heartbeat is missed six times are tried again, with backoff, until
// one attempt ends: the task is done and merged. A commit that fails on its
// own (git refusing it) is tried five times, then fails its task.
func TestGraphActivitiesOutlastLostWorkers(t *testing.T) {
	green := []func(int) (evidence.Iteration, error){gate(true, 0)}
	f := &fakeGraph{scripts: map[string]*script{"g-a": {results: green}, "g-b": {results: green}}}
	env := newGraphEnv(t, f)
	attempts := map[string]int32{}
	env.RegisterActivityWithOptions(func(ctx context.Context, in WorkTreeInput) (WorkTreeOutput, error) {
		attempts["worktree "+in.ID] = activity.GetInfo(ctx).Attempt
		if in.ID == "a" && activity.GetInfo(ctx).Attempt <= 8 {
			return WorkTreeOutput{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil)
		}
		return f.workTree(ctx, in)
	}, activity.RegisterOptions{Name: ActivityWorkTree})
	env.RegisterActivityWithOptions(func(ctx context.Context, in CommitInput) (CommitOutput, error) {
		n := activity.GetInfo(ctx).Attempt
		attempts["commit "+in.Task.ID] = n
		switch {
		case in.Task.ID == "a" && n <= 6:
			return CommitOutput{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil)
		case in.Task.ID == "b":
			return CommitOutput{}, ownError(ctx, errors.New("git commit: fatal: cannot lock ref"), graphAttempts, "agentloop.Commit")
		}
		return f.commit(ctx, in)
	}, activity.RegisterOptions{Name: ActivityCommit})
	env.ExecuteWorkflow(WorkflowGraph, graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a", "b"))
	res := graphResult(t, env)
	if o := res.Outcomes["a"]; o.State != tasks.StateSucceeded || !slices.Contains(res.Merged, "a") {
		t.Errorf("task a: %s (%s), merged %v; want succeeded and merged after its lost attempts", o.State, o.Reason, res.Merged)
	}
	if o := res.Outcomes["b"]; o.State != tasks.StateFailed || !strings.Contains(o.Reason, "cannot lock ref") {
		t.Errorf("task b: %s (%s); want failed, saying why its commit failed", o.State, o.Reason)
	}
	want := map[string]int32{"worktree a": 9, "commit a": 7, "worktree b": 1, "commit b": graphAttempts}
	if diff := cmp.Diff(want, attempts); diff != "" {
		t.Errorf("the last attempt of each activity (-want +got):\n%s", diff)
	}
}
