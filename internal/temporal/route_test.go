package temporal

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// fleetSteps is a step activity on a fleet: each step says which worker ran
// it; the worker on a queue in gone takes no step (as when nobody polls).
type fleetSteps struct {
	gone   map[string]bool
	queues []string // the queue each step was sent to, in order
}

func (f *fleetSteps) step(ctx context.Context, in StepInput) (StepOutput, error) {
	q := activity.GetInfo(ctx).TaskQueue
	f.queues = append(f.queues, q)
	if f.gone[q] {
		return StepOutput{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START, nil)
	}
	worker := map[bool]string{true: "w1", false: "w2"}[len(f.queues) == 1]
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return StepOutput{StepResult: state.StepResult{Started: t0, Finished: t0}, Queue: worker}, nil
}

// TestStepsFollowTheWorkTree: the first step goes to any worker, the next ones
// to the queue of the worker that ran it; when that worker takes none, the step
// goes to any worker again, and then follows the one that took it.
func TestStepsFollowTheWorkTree(t *testing.T) {
	f := &fleetSteps{gone: map[string]bool{"w1": true}}
	env := newEnv(t, &script{})
	env.RegisterActivityWithOptions(f.step, activity.RegisterOptions{Name: ActivityStep})
	env.RegisterActivityWithOptions(noKeep, activity.RegisterOptions{Name: ActivityKeep})
	env.ExecuteWorkflow(WorkflowRun, input(budget.Limits{MaxIterations: 3, FailureThreshold: 3}, false))
	if out := result(t, env); out.Status != state.StatusCompleted {
		t.Errorf("outcome %s %q, want completed", out.Status, out.Reason)
	}
	if want := []string{"default-test-taskqueue", "w1", "default-test-taskqueue", "w2"}; !slices.Equal(f.queues, want) {
		t.Errorf("steps sent to %q, want %q", f.queues, want)
	}
}

func TestWorkerGone(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nobody took the step", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START, nil), true},
		{"attempts ran out on lost heartbeats", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil), true},
		{"the step ran too long", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil), false},
		{"the step failed", temporal.NewApplicationError("gate failed", "agentloop.Step"), false},
		{"no error", errors.New("other"), false},
	}
	for _, tt := range tests {
		if got := workerGone(tt.err); got != tt.want {
			t.Errorf("%s: workerGone = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestStepOptions: a step sent to a worker's own queue gives up after twice
// the heartbeat timeout without a taker; one sent to the shared queue waits.
func TestStepOptions(t *testing.T) {
	w := &wfEnv{in: RunInput{HeartbeatTimeout: 5 * time.Second}}
	r := loop.StepRequest{Kind: loop.StepIteration, Timeout: time.Minute}
	if o := w.stepOptions(r, "w1"); o.TaskQueue != "w1" || o.ScheduleToStartTimeout != 10*time.Second || o.HeartbeatTimeout != 5*time.Second {
		t.Errorf("routed step: %+v", o)
	}
	if o := w.stepOptions(r, ""); o.ScheduleToStartTimeout != 0 || o.StartToCloseTimeout != time.Minute+stepGrace {
		t.Errorf("step to any worker: %+v", o)
	}
	if o := (&wfEnv{}).stepOptions(r, ""); o.HeartbeatTimeout != DefaultHeartbeatTimeout {
		t.Errorf("heartbeat timeout %s, want the default", o.HeartbeatTimeout)
	}
}
