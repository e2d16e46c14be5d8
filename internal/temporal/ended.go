package temporal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/state"
)

// A query is answered by a worker, which replays the workflow's history to
// the point the query asks about; a run that ended is read the same way here,
// without a worker: its history is replayed by this build's workflow and the
// state the query reads is taken from it once the history is done. So status
// and report of a finished run (and of a graph) work with no worker alive.

// described is the server's description of the last workflow of an ID.
type described struct {
	runID string
	over  bool // it ended
	// live is what its step under way is doing, as the step's last
	// heartbeat told it (zero: none is under way, or it told nothing).
	live state.LiveStatus
}

// ended describes the last workflow of id; the error is the server's (a
// NotFound when it has none).
func ended(ctx context.Context, c client.Client, id string) (described, error) {
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return described{}, err
	}
	info := d.GetWorkflowExecutionInfo()
	return described{
		runID: info.GetExecution().GetRunId(),
		over:  info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING,
		live:  pendingLive(d.GetPendingActivities()),
	}, nil
}

// pendingLive is what the run's step under way among the pending activities
// is doing, as its last heartbeat told it ([Steps.Step]); zero when no step
// told anything (none is under way, its worker has not sent a heartbeat
// since it began, or its worker's build sends none).
func pendingLive(pending []*workflowpb.PendingActivityInfo) state.LiveStatus {
	for _, a := range pending {
		if a.GetActivityType().GetName() != ActivityStep || a.GetHeartbeatDetails() == nil {
			continue
		}
		var ls state.LiveStatus
		if err := converter.GetDefaultDataConverter().FromPayloads(a.GetHeartbeatDetails(), &ls); err == nil && ls.Phase != "" {
			return ls
		}
	}
	return state.LiveStatus{}
}

// replayedRun is the state query's answer of the ended workflow id (run
// runID), from its history replayed here.
func replayedRun(ctx context.Context, c client.Client, id, runID string) (View, error) {
	// The workflow runs on the replayer's goroutines, which may start it
	// again after the replay returned: the first environment is the
	// replayed one, handed over atomically.
	var seen atomic.Pointer[wfEnv]
	wf := func(ctx workflow.Context, in RunInput) (RunResult, error) {
		return run(ctx, in, func(e *wfEnv) { seen.CompareAndSwap(nil, e) })
	}
	if err := replayHere(ctx, c, id, runID, WorkflowRun, wf); err != nil {
		return View{}, err
	}
	env := seen.Load()
	if env == nil {
		return View{}, errors.New("its history never started the workflow")
	}
	return env.view()
}

// replayedGraph is the graph query's answer of the ended graph workflow id
// (run runID), from its history replayed here.
func replayedGraph(ctx context.Context, c client.Client, id, runID string) (GraphView, error) {
	var seen atomic.Pointer[graphWf] // as replayedRun's
	wf := func(ctx workflow.Context, in GraphInput) (GraphResult, error) {
		return runGraph(ctx, in, func(g *graphWf) { seen.CompareAndSwap(nil, g) })
	}
	if err := replayHere(ctx, c, id, runID, WorkflowGraph, wf); err != nil {
		return GraphView{}, err
	}
	gw := seen.Load()
	if gw == nil || gw.sch == nil {
		return GraphView{}, errors.New("its history never scheduled the graph's tasks")
	}
	return gw.view()
}

// replayHere replays the history of the workflow id (run runID) by wf,
// registered under name. A history this build's workflow cannot replay (one
// recorded by a build whose workflow took other steps) is an error.
func replayHere(ctx context.Context, c client.Client, id, runID, name string, wf any) error {
	h := &historypb.History{}
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return fmt.Errorf("read the history of workflow %s: %w", id, err)
		}
		h.Events = append(h.Events, ev)
	}
	r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{DisableDeadlockDetection: true})
	if err != nil {
		return err
	}
	r.RegisterWorkflowWithOptions(wf, workflow.RegisterOptions{Name: name})
	quiet := tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))
	err = r.ReplayWorkflowHistoryWithOptions(quiet, h, worker.ReplayWorkflowHistoryOptions{
		OriginalExecution: workflow.Execution{ID: id, RunID: runID},
	})
	if err != nil {
		return fmt.Errorf("replay the history of workflow %s: %w", id, err)
	}
	return nil
}
