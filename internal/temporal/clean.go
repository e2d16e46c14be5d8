package temporal

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agentloop/agentloop/internal/state"
)

// CleanRuns are the runs of the namespace as `agentloop clean` weighs what
// they left in a clone and on the shared remote ([state.EngineRun]), each
// from its last workflow: one running is live (a run waiting for a person's
// guidance too); one that completed ended as its loop did, escalated when its
// memo says it waits for a person (a budget, its agent's setup: a resume goes
// on with it); one cancelled was interrupted; one that failed, was terminated
// or timed out stopped where a resume picks it up (interrupted). The run's ID
// is read from its workflow's input, without a worker.
func CleanRuns(ctx context.Context, c client.Client) ([]state.EngineRun, error) {
	runs, err := listRuns(ctx, c)
	if err != nil {
		return nil, err
	}
	out := make([]state.EngineRun, 0, len(runs))
	for _, r := range runs {
		exec := r.info.GetExecution()
		in, _, err := startInput(ctx, c, exec.GetWorkflowId(), exec.GetRunId())
		if err != nil {
			return nil, err
		}
		name, _ := Unscoped(r.key)
		er := state.EngineRun{Name: name, RunID: in.State.RunID}
		switch r.info.GetStatus() {
		case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
			er.Live = true
		case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
			er.Status = state.StatusCompleted
			if _, waiting, _ := memoWaiting(r.info.GetMemo()); waiting {
				er.Status = state.StatusEscalated
			}
		default:
			er.Status = state.StatusInterrupted
		}
		out = append(out, er)
	}
	return out, nil
}

// startInput is the input the workflow id (run runID, "" for its last) was
// started with, and when, from the first event of its history.
func startInput(ctx context.Context, c client.Client, id, runID string) (RunInput, time.Time, error) {
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return RunInput{}, time.Time{}, fmt.Errorf("read the start of workflow %s: its history is empty", id)
	}
	ev, err := it.Next()
	if err != nil {
		return RunInput{}, time.Time{}, fmt.Errorf("read the start of workflow %s: %w", id, err)
	}
	var in RunInput
	if err := converter.GetDefaultDataConverter().FromPayloads(ev.GetWorkflowExecutionStartedEventAttributes().GetInput(), &in); err != nil {
		return RunInput{}, time.Time{}, fmt.Errorf("read the input of workflow %s: %w", id, err)
	}
	return in, ev.GetEventTime().AsTime(), nil
}
