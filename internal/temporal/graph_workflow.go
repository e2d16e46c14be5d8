//go:build temporal

package temporal

import (
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/session"
	"github.com/agentloop/agentloop/internal/tasks"
)

// The names the graph's workflow, its activities and its query are registered
// under.
const (
	WorkflowGraph    = "agentloop.graph"
	ActivityWorkTree = "agentloop.graph.worktree"
	ActivityCommit   = "agentloop.graph.commit"
	ActivityMerge    = "agentloop.graph.merge"
	QueryGraphState  = "graph"
)

// GraphWorkflowID is the workflow of the task graph NAME: one run of a graph
// at a time. Its tasks' loops are the run workflows of their run names
// ([session.TaskRunName]), so status, report and resume reach them by name.
func GraphWorkflowID(name string) string { return graphPrefix + name }

const graphPrefix = "agentloop-graph-"

// GraphTask names the task of a graph a run is the loop of, for the worker
// that rebuilds the run's plan.
type GraphTask struct {
	Graph    string // the graph's name
	Repo     string // the repository the graph runs in (its configuration), on the worker's disk
	StateDir string // the repository's state folder
	Task     tasks.Task
}

// GraphInput starts a task graph's workflow.
type GraphInput struct {
	Name     string
	File     tasks.File // the parsed task file: tasks, dependencies, global budget
	Parallel int        // how many tasks run at once (below 1: one)
	Repo     string     // the repository on the workers' disk
	StateDir string     // its state folder (worktrees and runs)
	Base     string     // what a task's branch starts from (HEAD)
	// Runs are the tasks' run inputs by task id, built by the client from the
	// configuration; the workflow caps their cost and token limits by what is
	// left of the global budget when each starts.
	Runs map[string]RunInput
	// TaskQueue is the queue of the graph's own activities (worktrees,
	// commits, merges): the worker holding the repository; empty for the
	// workflow's queue.
	TaskQueue string
}

// GraphView is what the graph query returns: where every task stands.
type GraphView struct {
	Name     string
	File     tasks.File
	Outcomes map[string]tasks.Outcome // the tasks not running now
	Running  []string                 // the tasks whose loop runs now (or waits for guidance)
	Merged   []string                 // the tasks merged back, in order
	Stopped  string                   // why tasks were skipped (the global budget), or ""
	Warnings []string                 // what the merge-back could not do
	Ended    bool
}

// GraphResult is how a graph's workflow ended.
type GraphResult struct {
	Outcomes        map[string]tasks.Outcome
	BudgetExhausted bool
}

// WorkTreeInput is the worktree activity's argument: a task's worktree and branch.
type WorkTreeInput struct{ Repo, StateDir, Graph, ID, Base string }

// CommitInput is the commit activity's argument: a task whose work to commit
// on its branch.
type CommitInput struct {
	WorkTree string
	Task     tasks.Task
}

// MergeInput is the merge activity's argument: the done tasks' branches to
// merge back, in completion order.
type MergeInput struct {
	Repo     string
	StateDir string
	Graph    string
	File     tasks.File
	Order    []string
}

// MergeOutput is the merge activity's result: each merge, the warnings (a plan
// not ticked) and the error that stopped the merges, if one did.
type MergeOutput struct {
	Results  []tasks.MergeResult
	Warnings []string
	Err      string
}

// graphActivityTimeout bounds a worktree, commit or merge activity.
const graphActivityTimeout = 10 * time.Minute

// Graph is the workflow of a task graph: its tasks' loops as child run
// workflows, in dependency order and up to Parallel at once ([tasks.Schedule]),
// the global budget asked before each task starts ([session.GlobalBudget]);
// then the done tasks' branches are merged back by an activity, a conflict
// making that task escalated, as the local engine does. A task whose loop
// escalates waits for its guidance (the run workflow's update) and the tasks
// after it wait with it.
func Graph(ctx workflow.Context, in GraphInput) (GraphResult, error) {
	g, err := tasks.NewGraph(in.File.Tasks)
	if err != nil {
		return GraphResult{}, temporal.NewNonRetryableApplicationError(err.Error(), "agentloop.Graph", err)
	}
	sch, err := tasks.NewSchedule(g, nil)
	if err != nil {
		return GraphResult{}, temporal.NewNonRetryableApplicationError(err.Error(), "agentloop.Graph", err)
	}
	gw := &graphWf{in: in, sch: sch, running: map[string]bool{}}
	if err := workflow.SetQueryHandler(ctx, QueryGraphState, gw.view); err != nil {
		return GraphResult{}, fmt.Errorf("register the graph query: %w", err)
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue: in.TaskQueue, StartToCloseTimeout: graphActivityTimeout,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
	})
	sel := workflow.NewSelector(ctx)
	parallel := max(in.Parallel, 1)
	for {
		for sch.Running() < parallel && sch.Ready() && sch.Stopped() == "" && ctx.Err() == nil {
			if over, why := session.GlobalBudget(in.File.Budget, gw.spent()); over {
				sch.Stop(why)
				break
			}
			t := sch.Start()
			gw.running[t.ID] = true
			sel.AddFuture(gw.start(ctx, actx, t), func(f workflow.Future) {
				var o tasks.Outcome
				err := f.Get(ctx, &o)
				delete(gw.running, t.ID)
				sch.Finish(t.ID, tasks.Settle(o, err, ctx.Err() != nil))
			})
		}
		if sch.Running() == 0 {
			break
		}
		sel.Select(ctx)
	}
	out := sch.Outcomes()
	if ctx.Err() == nil {
		gw.mergeBack(ctx, actx, out)
	}
	gw.final = out
	return GraphResult{Outcomes: out, BudgetExhausted: sch.Stopped() != ""}, nil
}

// graphWf is a graph workflow's state.
type graphWf struct {
	in       GraphInput
	sch      *tasks.Schedule
	running  map[string]bool
	merged   []string
	warnings []string
	final    map[string]tasks.Outcome // set once the graph ended
}

func (gw *graphWf) view() (GraphView, error) {
	v := GraphView{Name: gw.in.Name, File: gw.in.File, Merged: gw.merged, Stopped: gw.sch.Stopped(),
		Warnings: gw.warnings, Ended: gw.final != nil}
	v.Outcomes = gw.final
	if v.Outcomes == nil {
		v.Outcomes = gw.sch.Outcomes()
	}
	for _, t := range gw.in.File.Tasks {
		if gw.running[t.ID] {
			v.Running = append(v.Running, t.ID)
		}
	}
	return v, nil
}

// spent is what the graph's ended tasks spent.
func (gw *graphWf) spent() budget.Spent {
	var u evidence.Usage
	for _, o := range gw.sch.Outcomes() {
		u = u.Add(o.Usage)
	}
	return budget.SpentFrom(u, 0, 0)
}

// start runs the task t in a workflow goroutine; the future is its outcome.
func (gw *graphWf) start(ctx, actx workflow.Context, t tasks.Task) workflow.Future {
	f, set := workflow.NewFuture(ctx)
	workflow.Go(ctx, func(ctx workflow.Context) {
		o, err := gw.runTask(ctx, workflow.WithActivityOptions(ctx, workflow.GetActivityOptions(actx)), t)
		set.Set(o, err)
	})
	return f
}

// runTask runs one task: its worktree on a worker, its loop as a child run
// workflow, its work committed on its branch.
func (gw *graphWf) runTask(ctx, actx workflow.Context, t tasks.Task) (tasks.Outcome, error) {
	in := gw.in
	wt := WorkTreeInput{Repo: in.Repo, StateDir: in.StateDir, Graph: in.Name, ID: t.ID, Base: in.Base}
	if err := workflow.ExecuteActivity(actx, ActivityWorkTree, wt).Get(ctx, nil); err != nil {
		return tasks.Outcome{}, fmt.Errorf("task %s: create its worktree: %w", t.ID, err)
	}
	run, ok := in.Runs[t.ID]
	if !ok {
		return tasks.Outcome{}, fmt.Errorf("task %s: the graph's input has no run for it", t.ID)
	}
	run.Limits = run.Limits.Within(in.File.Budget, gw.spent())
	run.State.Sessions = append(slices.Clone(run.State.Sessions), loop.Session{StartedAt: workflow.Now(ctx)})
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: WorkflowID(run.Run.Name), WaitForCancellation: true,
	})
	var res RunResult
	runErr := workflow.ExecuteChildWorkflow(cctx, WorkflowRun, run).Get(ctx, &res)
	if ctx.Err() == nil {
		commit := CommitInput{WorkTree: run.Run.WorkDir, Task: t}
		if err := workflow.ExecuteActivity(actx, ActivityCommit, commit).Get(ctx, nil); err != nil && runErr == nil {
			runErr = fmt.Errorf("task %s: commit its work: %w", t.ID, err)
		}
	}
	st := loop.State{Status: res.Status, Reason: res.Reason, TotalIterations: res.Iterations, Spend: loop.Spend{Usage: res.Usage}}
	return session.OutcomeOf(&st, session.TaskBranch(in.Name, t.ID)), runErr
}

// mergeBack merges the done tasks' branches in the order they finished; a
// conflict makes that task escalated.
func (gw *graphWf) mergeBack(ctx, actx workflow.Context, out map[string]tasks.Outcome) {
	order := tasks.CompletionOrder(out)
	if len(order) == 0 {
		return
	}
	var mo MergeOutput
	in := MergeInput{Repo: gw.in.Repo, StateDir: gw.in.StateDir, Graph: gw.in.Name, File: gw.in.File, Order: order}
	if err := workflow.ExecuteActivity(actx, ActivityMerge, in).Get(ctx, &mo); err != nil {
		mo.Err = err.Error()
	}
	for _, r := range mo.Results {
		if r.Merged {
			gw.merged = append(gw.merged, r.ID)
		}
	}
	tasks.ApplyMerges(out, mo.Results)
	gw.warnings = append(gw.warnings, mo.Warnings...)
	if mo.Err != "" {
		// The branches not merged stay for a human to merge.
		gw.warnings = append(gw.warnings, mo.Err)
	}
}
