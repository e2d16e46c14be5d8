package temporal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/session"
)

// NewInput is the workflow input of a run of the plan from the state st (a
// fresh state, or the state a run ended in to continue it); queue routes its
// steps to one worker's queue ("" for the shared one).
func NewInput(p *plan.Plan, st *loop.State, queue string) (RunInput, error) {
	pol, err := plan.Policy(p)
	if err != nil {
		return RunInput{}, err
	}
	return RunInput{
		Run: RunRef{
			Name: p.Name, RunID: st.RunID, Procedure: p.Proc.Name, WorkDir: p.WorkDir,
			Args: slices.Clone(p.Args), TaskQueue: queue,
		},
		Task: p.TaskText(), Limits: p.Proc.Limits.Limits,
		HasGates: len(p.Gates) > 0, HasReviewer: p.Reviewer != nil, Baseline: p.Proc.Baseline && len(p.Gates) > 0,
		Policy: pol, State: *st,
	}, nil
}

// NewState is the state a new run of the plan starts from.
func NewState(p *plan.Plan, now time.Time) *loop.State {
	return &loop.State{
		Version: loop.StateVersion, Name: p.Name, RunID: session.NewRunID(now), Procedure: p.Proc.Name,
		Status: loop.StatusRunning, StartedAt: now, Args: p.Args, WorkDir: p.WorkDir,
		MaxIterations: p.Proc.Limits.MaxIterations, FailureThreshold: p.Proc.Limits.FailureThreshold,
	}
}

// ErrRunning is returned by [Start] when a workflow of the run is running.
var ErrRunning = errors.New("the run is already running on Temporal")

// Start starts a run's workflow on the server's task queue; a session is added
// to the state.
func Start(ctx context.Context, c client.Client, s Server, in RunInput, now time.Time) error {
	in.State.Sessions = append(in.State.Sessions, loop.Session{StartedAt: now})
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: WorkflowID(in.Run.Name), TaskQueue: s.TaskQueue,
	}, WorkflowRun, in)
	if _, ok := errors.AsType[*serviceerror.WorkflowExecutionAlreadyStarted](err); ok {
		return fmt.Errorf("run %s: %w; follow it with 'agentloop status %s --engine temporal'", in.Run.Name, ErrRunning, in.Run.Name)
	}
	if err != nil {
		return fmt.Errorf("start the workflow of run %s: %w", in.Run.Name, err)
	}
	return nil
}

// ErrNoRun is returned by [Query] when the server has no run of the name.
var ErrNoRun = errors.New("no run of that name on the Temporal server")

// Query reads a run's state, events and escalation from its workflow.
func Query(ctx context.Context, c client.Client, name string) (View, error) {
	v, err := c.QueryWorkflow(ctx, WorkflowID(name), "", QueryState)
	if err != nil {
		if _, ok := errors.AsType[*serviceerror.NotFound](err); ok {
			return View{}, fmt.Errorf("run %s: %w; 'agentloop status --engine temporal' lists them", name, ErrNoRun)
		}
		return View{}, fmt.Errorf("query run %s: %w", name, err)
	}
	var view View
	if err := v.Get(&view); err != nil {
		return View{}, fmt.Errorf("decode the state of run %s: %w", name, err)
	}
	return view, nil
}

// Guide sends a human's answer to a run that waits for one; the error is the
// run's when it does not accept it (not waiting, an empty answer).
func Guide(ctx context.Context, c client.Client, name string, g Guidance) error {
	if err := g.Validate(); err != nil {
		return err
	}
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: WorkflowID(name), UpdateName: UpdateGuidance, Args: []any{g},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("send the guidance to run %s: %w", name, err)
	}
	return nil
}

// Names lists the runs the server knows, newest first, each once.
func Names(ctx context.Context, c client.Client) ([]string, error) {
	var names []string
	seen := map[string]bool{}
	req := &workflowservice.ListWorkflowExecutionsRequest{Query: fmt.Sprintf("WorkflowType = '%s'", WorkflowRun)}
	for {
		resp, err := c.ListWorkflow(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("list the runs on the Temporal server: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			id := e.GetExecution().GetWorkflowId()
			if n, ok := runName(id); ok && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		if len(resp.GetNextPageToken()) == 0 {
			return names, nil
		}
		req.NextPageToken = resp.GetNextPageToken()
	}
}

// NewWorker is a worker polling the server's task queue for workflows and
// steps; with activityQueue it also polls that queue for the steps of the runs
// routed to this worker. Run it with its Run method.
func NewWorker(c client.Client, s Server, steps *Steps, activityQueue string) []worker.Worker {
	w := worker.New(c, s.TaskQueue, worker.Options{})
	w.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: WorkflowRun})
	RegisterSteps(w, steps)
	gs := &GraphSteps{Steps: steps}
	RegisterGraph(w, gs)
	ws := []worker.Worker{w}
	if activityQueue != "" && activityQueue != s.TaskQueue {
		aw := worker.New(c, activityQueue, worker.Options{DisableWorkflowWorker: true})
		RegisterSteps(aw, steps)
		registerGraphSteps(aw, gs)
		ws = append(ws, aw)
	}
	return ws
}

// RegisterSteps registers the step and keep activities of steps on w.
func RegisterSteps(w worker.Worker, steps *Steps) {
	w.RegisterActivityWithOptions(steps.Step, activity.RegisterOptions{Name: ActivityStep})
	registerKeep(w, steps)
}

// runName is the run a workflow ID names.
func runName(id string) (string, bool) { return strings.CutPrefix(id, workflowPrefix) }
