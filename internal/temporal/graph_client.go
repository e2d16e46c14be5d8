package temporal

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
)

// ErrNoGraph is returned by [QueryGraph] when the server has no graph of the name.
var ErrNoGraph = errors.New("no task graph of that name on the Temporal server")

// StartGraph starts a task graph's workflow on the server's task queue, under
// its name in its repository ([GraphWorkflowID], [GraphInput.RepoID]). Its
// tasks' runs set the search attribute [SearchWaiting] when the namespace
// has it.
func StartGraph(ctx context.Context, c client.Client, s Server, in GraphInput) error {
	search := searchable(ctx, c, s.Namespace)
	runs := make(map[string]RunInput, len(in.Runs))
	for id, r := range in.Runs {
		r.Search = search
		runs[id] = r
	}
	in.Runs = runs
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: GraphWorkflowID(in.Name, in.RepoID), TaskQueue: s.TaskQueue,
	}, WorkflowGraph, in)
	if _, ok := errors.AsType[*serviceerror.WorkflowExecutionAlreadyStarted](err); ok {
		return fmt.Errorf("task graph %s: %w; follow it with 'agentloop report %s --engine temporal'", in.Name, ErrRunning, in.Name)
	}
	if err != nil {
		return fmt.Errorf("start the workflow of task graph %s: %w", in.Name, err)
	}
	return nil
}

// QueryGraph reads where the task graph name of the repository repo
// ([RepoID]) stands from its workflow, or from the workflow of the name alone
// when the repository has none (a graph started by an older build); a graph
// that ended is read from its history, without a worker (see [ended]).
func QueryGraph(ctx context.Context, c client.Client, name, repo string) (GraphView, error) {
	v, err := queryGraph(ctx, c, name, GraphWorkflowID(name, repo))
	if repo != "" && errors.Is(err, ErrNoGraph) {
		return queryGraph(ctx, c, name, GraphWorkflowID(name, ""))
	}
	return v, err
}

// queryGraph is [QueryGraph] of the workflow id.
func queryGraph(ctx context.Context, c client.Client, name, id string) (GraphView, error) {
	d, err := ended(ctx, c, id)
	if _, ok := errors.AsType[*serviceerror.NotFound](err); ok {
		return GraphView{}, fmt.Errorf("task graph %s: %w", name, ErrNoGraph)
	}
	if err != nil {
		return GraphView{}, fmt.Errorf("read task graph %s: %w", name, err)
	}
	runID := d.runID
	var replayErr error
	if d.over {
		v, err := replayedGraph(ctx, c, id, runID)
		if err == nil {
			return v, nil
		}
		replayErr = err
	}
	v, err := c.QueryWorkflow(ctx, id, runID, QueryGraphState)
	if err != nil {
		if replayErr != nil {
			return GraphView{}, fmt.Errorf("task graph %s ended; this build cannot read its history (%v) and the query needs a worker of the build that ran it: %w", name, replayErr, err)
		}
		return GraphView{}, fmt.Errorf("query task graph %s: %w", name, err)
	}
	var view GraphView
	if err := v.Get(&view); err != nil {
		return GraphView{}, fmt.Errorf("decode the state of task graph %s: %w", name, err)
	}
	return view, nil
}

// LastGraph is how the last workflow of the task graph name in the
// repository repo left it (or of the name alone, started by an older build,
// when the repository has none), for a new one to resume
// ([GraphInput.Prior]); ok is false when the server has none. A workflow of
// the graph still running is an error saying how to follow it.
func LastGraph(ctx context.Context, c client.Client, name, repo string) (res GraphResult, ok bool, err error) {
	id := GraphWorkflowID(name, repo)
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	if _, nf := errors.AsType[*serviceerror.NotFound](err); nf && repo != "" {
		id = GraphWorkflowID(name, "")
		d, err = c.DescribeWorkflowExecution(ctx, id, "")
	}
	if _, ok := errors.AsType[*serviceerror.NotFound](err); ok {
		return GraphResult{}, false, nil
	}
	if err != nil {
		return GraphResult{}, false, fmt.Errorf("look for task graph %s on the Temporal server: %w", name, err)
	}
	if d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return GraphResult{}, true, fmt.Errorf("task graph %s: %w; follow it with 'agentloop report %s --engine temporal' (or 'agentloop status --engine temporal' for its tasks' runs)", name, ErrRunning, name)
	}
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, &res); err == nil {
		return res, true, nil
	}
	// Failed or terminated: its query still tells where its tasks stood.
	v, err := queryGraph(ctx, c, name, id)
	if err != nil {
		return GraphResult{}, true, fmt.Errorf("task graph %s ended without a result and cannot be resumed: %w", name, err)
	}
	return GraphResult{Outcomes: v.Outcomes, Merged: v.Merged, Args: v.Args, Committed: v.Committed}, true, nil
}
