//go:build temporal

package temporal

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
)

// ErrNoGraph is returned by [QueryGraph] when the server has no graph of the name.
var ErrNoGraph = errors.New("no task graph of that name on the Temporal server")

// StartGraph starts a task graph's workflow on the server's task queue.
func StartGraph(ctx context.Context, c client.Client, s Server, in GraphInput) error {
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: GraphWorkflowID(in.Name), TaskQueue: s.TaskQueue,
	}, WorkflowGraph, in)
	if _, ok := errors.AsType[*serviceerror.WorkflowExecutionAlreadyStarted](err); ok {
		return fmt.Errorf("task graph %s: %w; follow it with 'agentloop report %s --engine temporal'", in.Name, ErrRunning, in.Name)
	}
	if err != nil {
		return fmt.Errorf("start the workflow of task graph %s: %w", in.Name, err)
	}
	return nil
}

// QueryGraph reads where a task graph's tasks stand from its workflow.
func QueryGraph(ctx context.Context, c client.Client, name string) (GraphView, error) {
	v, err := c.QueryWorkflow(ctx, GraphWorkflowID(name), "", QueryGraphState)
	if err != nil {
		if _, ok := errors.AsType[*serviceerror.NotFound](err); ok {
			return GraphView{}, fmt.Errorf("task graph %s: %w", name, ErrNoGraph)
		}
		return GraphView{}, fmt.Errorf("query task graph %s: %w", name, err)
	}
	var view GraphView
	if err := v.Get(&view); err != nil {
		return GraphView{}, fmt.Errorf("decode the state of task graph %s: %w", name, err)
	}
	return view, nil
}
