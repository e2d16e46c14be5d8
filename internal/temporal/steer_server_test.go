package temporal

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// TestRealServerSteeredAcrossAWorkerCrash: on a real dev server, guidance
// queued by the steer update while iteration 1 runs, then the worker gone
// (its workflow's memory with it): another worker takes the run, rebuilds
// its queue from the history, runs iteration 1 again and applies the
// guidance at its end, once; iteration 2's prompt carries it.
func TestRealServerSteeredAcrossAWorkerCrash(t *testing.T) {
	_, c := newDevServer(t)
	defer c.Close()
	queue := "steer-" + fmt.Sprint(time.Now().UnixNano())
	started := make(chan struct{}, 1)
	// The first worker's iteration goes on, with signs of life, until the
	// worker stops.
	w1 := worker.New(c, queue, worker.Options{})
	w1.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: WorkflowRun})
	w1.RegisterActivityWithOptions(func(ctx context.Context, in StepInput) (state.StepResult, error) {
		select {
		case started <- struct{}{}:
		default:
		}
		for {
			activity.RecordHeartbeat(ctx)
			select {
			case <-ctx.Done():
				return state.StepResult{}, ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
	}, activity.RegisterOptions{Name: ActivityStep})
	w1.RegisterActivityWithOptions(noKeep, activity.RegisterOptions{Name: ActivityKeep})
	if err := w1.Start(); err != nil {
		t.Fatal(err)
	}
	in := input(budget.Limits{MaxIterations: 2, FailureThreshold: 3}, false)
	in.Run.Name, in.HeartbeatTimeout = "steered", 2*time.Second
	if err := Start(t.Context(), c, Server{TaskQueue: queue}, in, time.Now()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(60 * time.Second):
		t.Fatal("iteration 1 did not start")
	}
	ack, err := SteerRun(t.Context(), c, "steered", Steer{ID: "g1", Text: "use the v2 API", At: time.Now(), By: "ann"})
	if err != nil || ack.Iteration != 0 {
		t.Fatalf("steer: %+v, %v; want queued during iteration 1", ack, err)
	}
	w1.Stop()

	s := &script{results: []func(int) (evidence.Iteration, error){agentExit(0)}}
	w2 := startWorker(t, c, queue, s)
	defer w2.Stop()
	var out loop.Outcome
	if err := c.GetWorkflow(t.Context(), WorkflowID("steered"), "").Get(t.Context(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != state.StatusCompleted {
		t.Errorf("outcome %s %q, want completed", out.Status, out.Reason)
	}
	var steers []string
	for _, r := range s.requests {
		if r.Kind == loop.StepIteration {
			steers = append(steers, r.Steer)
		}
	}
	if len(steers) != 2 || steers[0] != "" || steers[1] != "use the v2 API" {
		t.Errorf("the new worker's iterations carried %q; want iteration 1 again without the guidance, then 2 with it", steers)
	}
	v := waitView(t, c, "steered", func(View) bool { return true })
	var acks int
	for _, ev := range v.Events {
		if h, ok := ev.Data.(state.HandoffRecorded); ok && h.Kind == state.HandoffGuide {
			acks++
			if h.ID != "g1" || h.Iteration != 2 {
				t.Errorf("hand-off %+v: want g1, applied in iteration 2", h)
			}
		}
	}
	if acks != 1 || len(v.State.Handoffs) != 1 || v.State.Steer != "use the v2 API" {
		t.Errorf("%d guide hand-off events, state hand-offs %+v, steer %q: want the guidance applied once", acks, v.State.Handoffs, v.State.Steer)
	}
}
