package temporal

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// The names the graph's workflow, its activities and its query are registered
// under.
const (
	WorkflowGraph    = "agentloop.graph"
	ActivityWorkTree = "agentloop.graph.worktree"
	ActivityCommit   = "agentloop.graph.commit"
	ActivityMerge    = "agentloop.graph.merge"
	ActivityPrune    = "agentloop.graph.prune"
	QueryGraphState  = "graph"
	// SignalSpend is how a task's run tells its graph what it spent so far
	// ([TaskSpend]), after each of its steps.
	SignalSpend = "agentloop.graph.spend"
)

// TaskSpend is the spend signal's argument: what the run of a task spent so
// far, over all its sessions.
type TaskSpend struct {
	Run   string // the run's name
	Usage evidence.Usage
}

// GraphWorkflowID is the workflow of the task graph name in the repository
// repo ([Scoped]; "" for a graph started before graphs carried their
// repository): one run of a graph in a repository at a time. Its tasks'
// loops are the run workflows of their run names ([tasks.TaskRunName]) in
// the same repository, so status, report and resume reach them by name.
func GraphWorkflowID(name, repo string) string { return graphPrefix + Scoped(name, repo) }

const graphPrefix = "agentloop-graph-"

// GraphTask names the task of a graph a run is the loop of, for the worker
// that rebuilds the run's plan.
type GraphTask struct {
	Graph    string // the graph's name
	Repo     string // the repository the graph runs in (its configuration), on the worker's disk
	StateDir string // the repository's state folder
	Task     tasks.Task
	Base     string `json:",omitempty"` // what the task's branch starts from ("": HEAD)
	// Head is where the task's branch was left by its last commit
	// ([WorkTreeInput.Head]): a worker taking the task's run over makes its
	// worktree from it.
	Head string `json:",omitempty"`
}

// workTree is what makes the task's worktree on a worker that has none.
func (t GraphTask) workTree() WorkTreeInput {
	return WorkTreeInput{Repo: t.Repo, StateDir: t.StateDir, Graph: t.Graph, ID: t.Task.ID, Base: t.Base, Head: t.Head}
}

// Member is the task as the graph's rules know it ([tasks.Member]).
func (t GraphTask) Member() tasks.Member {
	return tasks.Member{Graph: t.Graph, Repo: t.Repo, StateDir: t.StateDir, Task: t.Task}
}

// In is the task's graph as it is in the clone at clone (a worker's
// --work-tree): the repository there, its state folder at the same place in
// it; "" keeps them, for a worker on the graph's machine.
func (t GraphTask) In(clone string) GraphTask {
	t.Repo, t.StateDir = onClone(clone, t.Repo, t.StateDir)
	return t
}

// onClone maps the repository repo and a path in it onto the clone at clone
// ("" keeps them); a path outside the repository stays.
func onClone(clone, repo, path string) (string, string) {
	if clone == "" || repo == "" || clone == repo {
		return repo, path
	}
	if rel, err := filepath.Rel(repo, path); err == nil && filepath.IsLocal(rel) {
		path = filepath.Join(clone, rel)
	}
	return clone, path
}

// GraphInput starts a task graph's workflow.
type GraphInput struct {
	Name     string
	File     tasks.File // the parsed task file: tasks, dependencies, global budget
	Parallel int        // how many tasks run at once (below 1: one)
	Repo     string     // the repository on the workers' disk
	StateDir string     // its state folder (worktrees and runs)
	Base     string     // what a task's branch starts from (HEAD)
	// RepoID is the identity of the repository ([RepoID]) the graph's
	// workflow ID and its tasks' carry; "" for a graph started by an older
	// build.
	RepoID string `json:",omitempty"`
	// Runs are the tasks' run inputs by task id, built by the client from the
	// configuration; the workflow caps their cost and token limits by what is
	// left of the global budget when each starts.
	Runs map[string]RunInput
	// TaskQueue is the queue of the merge-back: the worker holding the
	// repository; empty for the workflow's queue. (A graph started before the
	// tasks ran on a fleet has its worktrees and commits there too.)
	TaskQueue string
	// Prior and Merged are where an earlier workflow of the graph left it,
	// when this one resumes it: the done tasks are not run again and the
	// merged ones not merged again. The other tasks' runs continue from the
	// states in Runs.
	Prior  map[string]tasks.Outcome `json:",omitempty"`
	Merged []string                 `json:",omitempty"`
	// Args are the flags the graph runs with, as its tasks' runs record them:
	// running its task file again starts from them.
	Args []string `json:",omitempty"`
	// Committed is where an earlier workflow of the graph left its tasks'
	// branches ([Committed]): a task whose run is over is only merged, from
	// the commit its branch was left at on whichever worker (fetched from the
	// shared remote), and the worker holding its work tree prunes it.
	Committed
}

// Committed is where a graph's workflow left the branches of its tasks, on a
// fleet: the commit each task's branch was left at by its commit, and the
// queue of the worker holding its work tree, by task id; a graph resumed
// from it ([GraphInput]) merges and prunes them from there.
type Committed struct {
	Heads map[string]string `json:",omitempty"`
	Held  map[string]string `json:",omitempty"`
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
	// Interrupted: the graph's workflow was cancelled; its running tasks
	// were interrupted and nothing was merged back.
	Interrupted bool
	Args        []string `json:",omitempty"` // the graph's flags ([GraphInput.Args])
	// TaskQueue is the queue of the graph's merge-back ([GraphInput.TaskQueue]).
	TaskQueue string `json:",omitempty"`
	Committed        // where the tasks' branches are
}

// GraphResult is how a graph's workflow ended.
type GraphResult struct {
	Outcomes        map[string]tasks.Outcome
	Merged          []string // the tasks merged back, by this workflow or an earlier one
	BudgetExhausted bool
	Interrupted     bool     // the workflow was cancelled
	Args            []string `json:",omitempty"` // the graph's flags ([GraphInput.Args])
	Committed                // where the tasks' branches are, for a graph resumed from it
}

// WorkTreeInput is the worktree activity's argument: a task's worktree and
// branch, in the graph's repository (mapped onto the worker's clone).
type WorkTreeInput struct {
	Repo, StateDir, Graph, ID, Base string
	// Head is the commit the task's branch was left at by its last commit,
	// on whichever worker ("" for none): a worktree made in a clone that does
	// not have the branch there starts from it, fetched from the shared
	// remote, not from Base.
	Head string `json:",omitempty"`
}

// WorkTreeOutput is the worktree activity's result: the queue of the worker
// that made it, where the task's steps go.
type WorkTreeOutput struct{ Queue string }

// CommitInput is the commit activity's argument: a task whose work to commit
// on its branch.
type CommitInput struct {
	WorkTree string
	Task     tasks.Task
	// Repo is the graph's repository WorkTree is in (mapped onto the worker's
	// clone), Branch the task's branch, pushed to the shared remote.
	Repo   string `json:",omitempty"`
	Branch string `json:",omitempty"`
	// Moved says the worker holding the work tree is gone: this worker
	// rebuilds it, from the run's last Checkpoint on the shared remote.
	Moved      bool    `json:",omitempty"`
	Run        *RunRef `json:",omitempty"`
	Checkpoint string  `json:",omitempty"`
}

// CommitOutput is the commit activity's result: the commit the task's branch
// is at, and whether it was pushed to the shared remote.
type CommitOutput struct {
	Head   string
	Pushed bool
	Queue  string `json:",omitempty"` // the committing worker's, which holds the work tree
}

// MergeInput is the merge activity's argument: the done tasks' branches to
// merge back, in completion order.
type MergeInput struct {
	Repo     string
	StateDir string
	Graph    string
	File     tasks.File
	Order    []string
	// Heads are the commits the tasks' branches were left at by their
	// commits, on whichever worker: a branch not there in the merging clone
	// is fetched from the shared remote, or left unmerged.
	Heads map[string]string `json:",omitempty"`
	// Runs are the runs of the tasks to merge, by id, whose plans' required
	// gates must pass on the merged result ([graph.Merger]); Checkpoints the
	// checkpoints on which their loops found those gates passing
	// ([graph.Verified]: a merged result of that tree is not checked again),
	// Baselines their runs' baseline gate results. A graph started before
	// names none (or said only which loops succeeded: their gates now run on
	// the merged result).
	Runs        map[string]RunRef                `json:",omitempty"`
	Checkpoints map[string]string                `json:",omitempty"`
	Baselines   map[string][]evidence.GateResult `json:",omitempty"`
}

// PruneInput is the prune activity's argument: the merged tasks whose
// worktrees and branches a worker holds, with the commits they were merged
// at.
type PruneInput struct {
	Repo, StateDir, Graph string
	Heads                 map[string]string
}

// MergeOutput is the merge activity's result: each merge, the warnings (a plan
// not ticked, a branch not found) and the error that stopped the merges, if
// one did; Queue is the merging worker's.
type MergeOutput struct {
	// Merges are the merges tried, with why a task was not merged;
	// Results the same as a graph started before reads them.
	Merges   []graph.Merge `json:",omitempty"`
	Results  []tasks.MergeResult
	Warnings []string
	Err      string
	Queue    string `json:",omitempty"`
	// Heads are where the branches of the tasks whose gates failed on the
	// merged result were left, pushed to the shared remote: at that result,
	// for the task's loop to fix when it is resumed with guidance, on
	// whichever worker.
	Heads map[string]string `json:",omitempty"`
}

// graphActivityTimeout bounds an attempt of a worktree, commit, merge or
// prune activity (a merge runs the task's gates on the merged result); a
// worker lost part way is found out sooner, by the activity's heartbeat.
const graphActivityTimeout = time.Hour

// onQueue is ctx's activity options on queue ("" for any worker); gone, when
// set, is how long a worker's own queue may leave the activity untaken.
func onQueue(ctx workflow.Context, queue string, gone time.Duration) workflow.Context {
	o := workflow.GetActivityOptions(ctx)
	o.TaskQueue = queue
	if queue == "" {
		o.TaskQueue = workflow.GetInfo(ctx).TaskQueueName
	} else if gone > 0 {
		o.ScheduleToStartTimeout = gone
	}
	return workflow.WithActivityOptions(ctx, o)
}

// Graph is the workflow of a task graph: its tasks' loops as child run
// workflows, in dependency order and up to Parallel at once ([tasks.Schedule]),
// the global budget asked before each task starts ([graph.GlobalBudget])
// over what every task spent, the running ones as they last told
// ([SignalSpend]); as locally, a running task is not stopped by it, its own
// limits were capped by what was left when it started;
// then the done tasks' branches are merged back by an activity, a conflict
// making that task escalated, as the local engine does. A task whose loop
// escalates waits for its guidance (the run workflow's update) and the tasks
// after it wait with it.
func Graph(ctx workflow.Context, in GraphInput) (GraphResult, error) { return runGraph(ctx, in, nil) }

// runGraph is [Graph]; seen, when set, is handed the workflow's state, which
// the graph query reads, for a replay of an ended graph's history to read it
// (see [QueryGraph]).
func runGraph(ctx workflow.Context, in GraphInput, seen func(*graphWf)) (GraphResult, error) {
	g, err := tasks.NewGraph(in.File.Tasks)
	if err != nil {
		return GraphResult{}, temporal.NewNonRetryableApplicationError(err.Error(), "agentloop.Graph", err)
	}
	gw := &graphWf{in: in, running: map[string]bool{}, merged: slices.Clone(in.Merged), spend: in.spend(),
		held: map[string]string{}, heads: map[string]string{}}
	maps.Copy(gw.held, in.Held)
	maps.Copy(gw.heads, in.Heads)
	if seen != nil {
		seen(gw)
	}
	if err := workflow.SetQueryHandler(ctx, QueryGraphState, gw.view); err != nil {
		return GraphResult{}, fmt.Errorf("register the graph query: %w", err)
	}
	gw.fleet = workflow.GetVersion(ctx, fleetChange, workflow.DefaultVersion, fleetPrune)
	gw.asDone = workflow.GetVersion(ctx, mergeChange, workflow.DefaultVersion, mergeAsDone)
	gw.commitOver = workflow.GetVersion(ctx, commitChange, workflow.DefaultVersion, commitWhenCancelled)
	gw.failed = workflow.GetVersion(ctx, failedChange, workflow.DefaultVersion, failedKept)
	prior := in.Prior
	if gw.asDone >= mergeAsDone {
		// A task done but not merged (its merge failed, or was refused) runs
		// again: its run is over, so only its merge is tried, and its
		// dependents wait for it.
		prior = maps.Clone(in.Prior)
		maps.DeleteFunc(prior, func(id string, o tasks.Outcome) bool { return !slices.Contains(in.Merged, id) })
	}
	gw.sch, err = tasks.NewSchedule(g, prior)
	if err != nil {
		return GraphResult{}, temporal.NewNonRetryableApplicationError(err.Error(), "agentloop.Graph", err)
	}
	sch := gw.sch
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue: in.TaskQueue, StartToCloseTimeout: graphActivityTimeout, HeartbeatTimeout: in.heartbeatTimeout(),
		// A lost worker or a timed-out attempt is tried again for as long
		// as it takes; an activity's own error is final after a few attempts.
		RetryPolicy: infraRetry(),
	})
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(workflow.GetSignalChannel(ctx, SignalSpend), func(c workflow.ReceiveChannel, _ bool) {
		var s TaskSpend
		c.Receive(ctx, &s)
		gw.told(s)
	})
	parallel := max(in.Parallel, 1)
	for {
		for sch.Running() < parallel && sch.Ready() && sch.Stopped() == "" && ctx.Err() == nil {
			if over, why := graph.GlobalBudget(in.File.Budget, gw.spent()); over {
				sch.Stop(why)
				break
			}
			t := sch.Start()
			gw.running[t.ID] = true
			sel.AddFuture(gw.start(ctx, actx, t), func(f workflow.Future) {
				var e taskEnd
				_ = f.Get(ctx, &e)
				o := e.Outcome
				if e.Err != nil && gw.failed < failedKept {
					o = tasks.Outcome{} // as a graph started before read it
				}
				delete(gw.running, t.ID)
				o = sch.Finish(t.ID, tasks.Settle(o, e.Err, ctx.Err() != nil))
				gw.spend[t.ID] = o.Usage
			})
		}
		if sch.Running() == 0 {
			break
		}
		sel.Select(ctx)
	}
	out := sch.Outcomes()
	if ctx.Err() == nil && gw.asDone < mergeAsDone {
		gw.mergeBack(ctx, actx, out)
	}
	gw.final, gw.interrupted = out, ctx.Err() != nil
	return GraphResult{Outcomes: out, Merged: gw.merged, BudgetExhausted: sch.Stopped() != "", Interrupted: gw.interrupted, Args: in.Args,
		Committed: gw.committed()}, nil
}

// fleetChange marks the graphs whose tasks run on a fleet: a task's worktree
// is made by any worker (or the one its run is pinned to), its steps go to
// that worker, its work is committed by the worker holding its work tree at
// the end and pushed to the shared remote, and the merge-back fetches it from
// there. A graph started before ran them all on its own queue.
const fleetChange = "graph-tasks-on-a-fleet"

// The versions of fleetChange.
const (
	fleetTasks   workflow.Version = 1 // the tasks run on a fleet
	fleetRebuild workflow.Version = 2 // and a commit whose worker is gone is made on another, which rebuilds the work tree
	fleetPrune   workflow.Version = 3 // and merged tasks' worktrees and branches are removed on the workers holding them
)

// mergeChange marks the graphs whose tasks merge back as soon as each is done
// (one at a time, if its required gates pass on the merged result), and
// start from the work merged before them; a graph started before merges its
// done tasks once they all ended, and starts every task from its base.
const mergeChange = "graph-merge-as-done"

// mergeAsDone is the version of mergeChange from which tasks merge as they
// are done.
const mergeAsDone workflow.Version = 1

// holdChange marks the graphs that leave a task waiting for guidance
// ([graph.AwaitsGuidance]) escalated, without trying its merge again; a graph
// started before tried it (and, its gates skipped on a succeeded run, could
// merge the merged result that had failed them).
const holdChange = "graph-hold-for-guidance"

// holdForGuidance is the version of holdChange from which such a task is held.
const holdForGuidance workflow.Version = 1

// commitChange marks the graphs that commit the work of a task whose run is
// over even when they are cancelled before or while it is committed
// ([graphWf.commitEnded]); a graph started before skipped or cut that commit,
// and, run again, could not merge the task.
const commitChange = "graph-commit-when-cancelled"

// commitWhenCancelled is the version of commitChange from which such a task's
// work is committed.
const commitWhenCancelled workflow.Version = 1

// failedChange marks the graphs that keep what a task whose run (or commit)
// ended in an error did and spent: its outcome's iterations and usage, which
// the graph's budget and report count. A graph started before counted none
// of it, and its budget let the tasks after it start on that count.
const failedChange = "graph-failed-task-spend"

// failedKept is the version of failedChange from which a failed task's
// outcome keeps what it did.
const failedKept workflow.Version = 1

// graphWf is a graph workflow's state.
type graphWf struct {
	in          GraphInput
	sch         *tasks.Schedule
	running     map[string]bool
	merged      []string
	warnings    []string
	final       map[string]tasks.Outcome // set once the graph ended
	interrupted bool
	spend       map[string]evidence.Usage // what each task spent so far, by id
	fleet       workflow.Version          // see fleetChange
	held        map[string]string         // the queue of the worker holding each task's work tree
	heads       map[string]string         // the commit each task's branch was left at
	asDone      workflow.Version          // see mergeChange
	merging     bool                      // a merge is under way: the next waits
	head        string                    // the repository's HEAD after the last merge, what tasks start from
	commitOver  workflow.Version          // see commitChange
	failed      workflow.Version          // see failedChange
}

// heartbeatTimeout is how long a graph's activity may go without a sign of
// life from its worker before it is tried again: its tasks' runs' (the
// longest, should they differ).
func (in GraphInput) heartbeatTimeout() time.Duration {
	hb := time.Duration(0)
	for _, r := range in.Runs {
		hb = max(hb, r.heartbeatTimeout())
	}
	if hb == 0 {
		return DefaultHeartbeatTimeout
	}
	return hb
}

// spend is what each task of the graph spent before this workflow: a done
// task's outcome's, another's run's state's (which its run continues).
func (in GraphInput) spend() map[string]evidence.Usage {
	s := map[string]evidence.Usage{}
	for _, t := range in.File.Tasks {
		if o, ok := in.Prior[t.ID]; ok && o.State.Done() {
			s[t.ID] = o.Usage
		} else if r, ok := in.Runs[t.ID]; ok {
			s[t.ID] = r.State.Spend.Total()
		}
	}
	return s
}

// told takes what a running task's run said it spent so far; a late word of a
// task that ended is not taken over its outcome's.
func (gw *graphWf) told(s TaskSpend) {
	for _, t := range gw.in.File.Tasks {
		if gw.running[t.ID] && gw.in.Runs[t.ID].Run.Name == s.Run {
			gw.spend[t.ID] = s.Usage
		}
	}
}

func (gw *graphWf) view() (GraphView, error) {
	v := GraphView{Name: gw.in.Name, File: gw.in.File, Merged: gw.merged, Stopped: gw.sch.Stopped(),
		Warnings: gw.warnings, Ended: gw.final != nil, Interrupted: gw.interrupted, Args: gw.in.Args, TaskQueue: gw.in.TaskQueue,
		Committed: gw.committed()}
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

// committed is where the graph's tasks' branches are: those it committed, and
// those an earlier workflow of it left (none on a graph's own queue).
func (gw *graphWf) committed() Committed {
	return Committed{Heads: maps.Clone(gw.heads), Held: maps.Clone(gw.held)}
}

// spent is what the graph's tasks spent so far, the running ones' included.
func (gw *graphWf) spent() budget.Spent {
	var u evidence.Usage
	for _, t := range gw.in.File.Tasks {
		u = u.Add(gw.spend[t.ID])
	}
	return u.Spent(0, 0)
}

// spendVersion is the workflow version from which the run of a task tells its
// graph what it spent after each step: the runs recorded before go on without.
const spendVersion = "graph-spend"

// tellGraph signals the graph a run is the task of what the run spent so far,
// when that changed, for the graph's budget to count the running tasks. The
// end of the run is not told: its result is.
func (w *wfEnv) tellGraph(st *state.State) {
	parent := workflow.GetInfo(w.ctx).ParentWorkflowExecution
	u := st.Spend.Total()
	if parent == nil || u == w.told || st.Status.Ended() || w.ctx.Err() != nil {
		return
	}
	if workflow.GetVersion(w.ctx, spendVersion, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	w.told = u
	// Not waited for: the graph takes it when it comes, and a graph that is
	// gone has no budget to keep.
	workflow.SignalExternalWorkflow(w.ctx, parent.ID, parent.RunID, SignalSpend, TaskSpend{Run: w.in.Run.Name, Usage: u})
}

// taskEnd is how a task's run ended: its outcome, what it did and spent,
// even when it ended in the error Err.
type taskEnd struct {
	Outcome tasks.Outcome
	Err     error
}

// start runs the task t in a workflow goroutine; the future's value is its
// [taskEnd] (a future's error would drop its value).
func (gw *graphWf) start(ctx, actx workflow.Context, t tasks.Task) workflow.Future {
	f, set := workflow.NewFuture(ctx)
	workflow.Go(ctx, func(ctx workflow.Context) {
		o, err := gw.runTask(ctx, workflow.WithActivityOptions(ctx, workflow.GetActivityOptions(actx)), t)
		set.Set(taskEnd{Outcome: o, Err: err}, nil)
	})
	return f
}

// runTask runs one task: its worktree on a worker, its loop as a child run
// workflow, its work committed on its branch. On a fleet, the worktree is made
// by a worker that can take it (any, or the one its run is pinned to) and the
// task's loop runs on that worker's queue.
func (gw *graphWf) runTask(ctx, actx workflow.Context, t tasks.Task) (tasks.Outcome, error) {
	in := gw.in
	wt := WorkTreeInput{Repo: in.Repo, StateDir: in.StateDir, Graph: in.Name, ID: t.ID, Base: in.Base, Head: gw.heads[t.ID]}
	if gw.head != "" {
		wt.Base = gw.head // its dependencies' work merged
	}
	run, ok := in.Runs[t.ID]
	// A run an earlier workflow of the graph ran to its end, and could not
	// merge back (a conflict), is not run again, only merged. On a fleet its
	// branch is where that workflow left it (and where a human resolving the
	// conflict put it): no worktree or commit is made for it elsewhere.
	over := ok && graph.RunOver(&run.State)
	fleetOver := over && gw.fleet >= fleetTasks
	if over && graph.AwaitsGuidance(&run.State, in.Prior[t.ID]) && workflow.GetVersion(ctx, holdChange, workflow.DefaultVersion, holdForGuidance) >= holdForGuidance {
		// Its gates failed on the merged result and no guidance came since:
		// it stays escalated, its merge not tried again.
		return in.Prior[t.ID], nil
	}
	if gw.fleet >= fleetTasks && ok && !fleetOver {
		var wo WorkTreeOutput
		if err := workflow.ExecuteActivity(onQueue(actx, run.Run.TaskQueue, 0), ActivityWorkTree, wt).Get(ctx, &wo); err != nil {
			return tasks.Outcome{}, fmt.Errorf("task %s: create its worktree: %w", t.ID, err)
		}
		if wo.Queue != "" {
			run.Run.TaskQueue = wo.Queue
		}
	} else if gw.fleet < fleetTasks {
		if err := workflow.ExecuteActivity(actx, ActivityWorkTree, wt).Get(ctx, nil); err != nil {
			return tasks.Outcome{}, fmt.Errorf("task %s: create its worktree: %w", t.ID, err)
		}
	}
	if !ok {
		return tasks.Outcome{}, fmt.Errorf("task %s: the graph's input has no run for it", t.ID)
	}
	if rt := run.Run.Task; rt != nil {
		// A worker taking the run, or its commit, over makes the task's
		// worktree as this one was made: from its dependencies' merged work,
		// at its branch's last commit.
		c := *rt
		c.Base, c.Head = wt.Base, wt.Head
		run.Run.Task = &c
	}
	var res RunResult
	var runErr error
	if st := &run.State; over {
		res = RunResult{Outcome: loop.Outcome{Status: st.Status, Reason: st.Reason}, Iterations: st.TotalIterations, Usage: st.Spend.Total(), Baseline: st.Baseline, Checkpoint: st.Tree}
	} else {
		run.Limits = graph.CapToGraph(run.Limits, in.File.Budget, gw.spent(), gw.spend[t.ID])
		run.State.Sessions = append(slices.Clone(run.State.Sessions), state.Session{StartedAt: workflow.Now(ctx)})
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
			WorkflowID: WorkflowID(Scoped(run.Run.Name, run.Repo)), WaitForCancellation: true,
		})
		runErr = workflow.ExecuteChildWorkflow(cctx, WorkflowRun, run).Get(ctx, &res)
		if r, ok := resultIn(runErr); ok && gw.failed >= failedKept {
			res = r // what the run did before its error
		}
	}
	st := state.State{Status: res.Status, Reason: res.Reason, TotalIterations: res.Iterations, Spend: state.Spend{Usage: res.Usage}}
	var commitErr error
	switch {
	case fleetOver:
	case runErr == nil && graph.RunOver(&st) && gw.commitOver >= commitWhenCancelled:
		commitErr = gw.commitEnded(ctx, actx, t, run, res)
	case ctx.Err() == nil:
		commitErr = gw.commit(ctx, actx, t, run, res)
	}
	if commitErr != nil && runErr == nil {
		runErr = fmt.Errorf("task %s: commit its work: %w", t.ID, commitErr)
	}
	o := graph.OutcomeOf(&st, tasks.TaskBranch(in.Name, t.ID))
	if gw.asDone < mergeAsDone || runErr != nil || ctx.Err() != nil || !o.State.Done() {
		return o, runErr
	}
	return gw.mergeNow(ctx, actx, t, run, res, o)
}

// mergeNow merges the work of the task t, whose run ended done (res, o), back
// into the graph's repository now, after the merges under way, by the rule of
// both engines ([graph.Merger]); its dependents then start from the merged
// result. Not merged, the task is escalated, saying why.
func (gw *graphWf) mergeNow(ctx, actx workflow.Context, t tasks.Task, run RunInput, res RunResult, o tasks.Outcome) (tasks.Outcome, error) {
	if err := workflow.Await(ctx, func() bool { return !gw.merging }); err != nil {
		return o, err
	}
	gw.merging = true
	defer func() { gw.merging = false }()
	in := MergeInput{Repo: gw.in.Repo, StateDir: gw.in.StateDir, Graph: gw.in.Name, File: gw.in.File, Order: []string{t.ID},
		Runs: map[string]RunRef{t.ID: run.Run}, Checkpoints: map[string]string{t.ID: graph.Verified(&state.State{Status: res.Status, Tree: res.Checkpoint})},
		Baselines: map[string][]evidence.GateResult{t.ID: res.Baseline}}
	if h := gw.heads[t.ID]; h != "" && gw.fleet >= fleetTasks {
		in.Heads = map[string]string{t.ID: h}
	}
	// A merge that could not be tried fails the task, its outcome kept (what
	// it did and spent): running the graph again tries it again.
	failed := func(why string) (tasks.Outcome, error) {
		o.State, o.Reason = tasks.StateFailed, fmt.Sprintf("its work is done but not merged back: %s", why)
		return o, nil
	}
	var mo MergeOutput
	if err := workflow.ExecuteActivity(actx, ActivityMerge, in).Get(ctx, &mo); err != nil {
		if ctx.Err() != nil {
			return o, err
		}
		return failed(err.Error())
	}
	gw.warnings = append(gw.warnings, mo.Warnings...)
	if len(mo.Merges) == 0 {
		why := mo.Err
		if why == "" {
			why = "the merge-back did not say why"
		}
		return failed(why)
	}
	m := mo.Merges[0]
	if !m.Merged {
		if h := mo.Heads[t.ID]; h != "" {
			gw.heads[t.ID] = h
		}
		return m.Outcome(o), nil
	}
	gw.merged = append(gw.merged, t.ID)
	gw.head = m.Head
	if q := gw.held[t.ID]; q != "" && q != mo.Queue && gw.fleet >= fleetPrune {
		gw.prune(ctx, actx, q, []string{t.ID})
	}
	return o, nil
}

// commitEnded commits the work of the task t, whose run is over, even when
// the graph is cancelled before or while it is made: a graph run again only
// merges such a task, and the work its worktree held uncommitted would stop
// that merge. The commit runs in a context the cancellation does not reach;
// once the graph is cancelled it has [commitGrace] (and the time the commit
// waits for the worker holding the work tree) before it is cancelled too, so
// the cancelled graph ends either way.
func (gw *graphWf) commitEnded(ctx, actx workflow.Context, t tasks.Task, run RunInput, res RunResult) error {
	dctx, cancel := workflow.NewDisconnectedContext(ctx)
	defer cancel()
	workflow.Go(dctx, func(c workflow.Context) {
		sel := workflow.NewSelector(c)
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
		sel.AddReceive(c.Done(), func(workflow.ReceiveChannel, bool) {})
		sel.Select(c)
		if c.Err() != nil {
			return // the commit ended
		}
		if workflow.NewTimer(c, commitGrace+2*run.heartbeatTimeout()).Get(c, nil) == nil {
			cancel()
		}
	})
	return gw.commit(dctx, workflow.WithActivityOptions(dctx, workflow.GetActivityOptions(actx)), t, run, res)
}

// commitGrace is how long the commit of a task whose run is over may go on
// once its graph is cancelled ([graphWf.commitEnded]), as a local graph's
// may once it is stopped ([graph.Finishing]). (A workflow's timer: the
// environment does not change it.)
const commitGrace = tasks.DefaultStopGrace

// commit commits the task's work on its branch: on the graph's queue, or on a
// fleet by the worker holding the task's work tree at the end of its run,
// which pushes the branch to the shared remote.
func (gw *graphWf) commit(ctx, actx workflow.Context, t tasks.Task, run RunInput, res RunResult) error {
	commit := CommitInput{WorkTree: run.Run.WorkDir, Task: t}
	if gw.fleet < fleetTasks {
		return workflow.ExecuteActivity(actx, ActivityCommit, commit).Get(ctx, nil)
	}
	held := res.Queue
	if held == "" {
		held = run.Run.TaskQueue // the run ended before a step said where it is
	}
	gw.held[t.ID] = held
	commit.Repo, commit.Branch = gw.in.Repo, tasks.TaskBranch(gw.in.Name, t.ID)
	// A worker gone for good since the run ended took the work tree with it:
	// the commit does not wait for it, another worker makes it.
	var co CommitOutput
	err := workflow.ExecuteActivity(onQueue(actx, held, 2*run.heartbeatTimeout()), ActivityCommit, commit).Get(ctx, &co)
	if workerGone(err) && gw.fleet >= fleetRebuild {
		workflow.GetLogger(ctx).Warn("the worker holding the task's work tree is gone: another commits its work, rebuilding the work tree from the run's last checkpoint",
			"task", t.ID, "queue", held, "error", err)
		commit.Moved, commit.Run, commit.Checkpoint = true, &run.Run, res.Checkpoint
		err = workflow.ExecuteActivity(onQueue(actx, "", 0), ActivityCommit, commit).Get(ctx, &co)
		gw.held[t.ID] = co.Queue
	}
	if co.Head != "" {
		gw.heads[t.ID] = co.Head
	}
	if workerGone(err) {
		return fmt.Errorf("the worker holding its work tree (queue %s) is gone: its work is in the last checkpoint of run %s (%s on the shared remote): %w",
			held, run.Run.Name, engine.CheckpointRefs(run.Run.Name, run.Run.RunID), err)
	}
	return err
}

// prune removes the worktrees and branches of the merged tasks ids on the
// worker of queue q, which holds them; what is left there is a warning.
func (gw *graphWf) prune(ctx, actx workflow.Context, q string, ids []string) {
	left := func(err error) {
		for _, id := range ids {
			gw.warnings = append(gw.warnings, fmt.Sprintf("task %s is merged; its worktree and branch stay in the clone of the worker of queue %s: remove them there (%v)", id, q, err))
		}
	}
	if gw.fleet < fleetPrune {
		left(errors.New("a graph started before they were removed there"))
		return
	}
	in := PruneInput{Repo: gw.in.Repo, StateDir: gw.in.StateDir, Graph: gw.in.Name, Heads: map[string]string{}}
	for _, id := range ids {
		in.Heads[id] = gw.heads[id]
	}
	var warnings []string
	hb := gw.in.Runs[ids[0]].heartbeatTimeout()
	if err := workflow.ExecuteActivity(onQueue(actx, q, 2*hb), ActivityPrune, in).Get(ctx, &warnings); err != nil {
		left(err)
		return
	}
	gw.warnings = append(gw.warnings, warnings...)
}

// mergeBack merges the done tasks' branches in the order they finished; a
// conflict makes that task escalated.
func (gw *graphWf) mergeBack(ctx, actx workflow.Context, out map[string]tasks.Outcome) {
	order := tasks.MergeOrder(out, gw.merged)
	if len(order) == 0 {
		return
	}
	var mo MergeOutput
	in := MergeInput{Repo: gw.in.Repo, StateDir: gw.in.StateDir, Graph: gw.in.Name, File: gw.in.File, Order: order}
	if gw.fleet >= fleetTasks {
		in.Heads = map[string]string{}
		for _, id := range order {
			if h := gw.heads[id]; h != "" {
				in.Heads[id] = h
			}
		}
	}
	if err := workflow.ExecuteActivity(actx, ActivityMerge, in).Get(ctx, &mo); err != nil {
		mo.Err = err.Error()
	}
	held := map[string][]string{} // the merged tasks by the queue of the worker holding them elsewhere
	var queues []string
	for _, r := range mo.Results {
		if r.Merged {
			gw.merged = append(gw.merged, r.ID)
			if q := gw.held[r.ID]; q != "" && q != mo.Queue {
				if held[q] == nil {
					queues = append(queues, q)
				}
				held[q] = append(held[q], r.ID)
			}
		}
	}
	tasks.ApplyMerges(out, mo.Results)
	gw.warnings = append(gw.warnings, mo.Warnings...)
	for _, q := range queues {
		gw.prune(ctx, actx, q, held[q])
	}
	if mo.Err != "" {
		// The branches not merged stay for a human to merge.
		gw.warnings = append(gw.warnings, mo.Err)
	}
}
