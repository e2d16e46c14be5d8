package temporal

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// fakeGraph stands in for a worker: each run's iterations come from its own
// script (by run name), and the graph's git activities are recorded.
type fakeGraph struct {
	mu        sync.Mutex
	scripts   map[string]*script
	started   []string // the runs in the order their first step came
	worktrees []string
	commits   []string
	merges    [][]string
	conflict  map[string]bool // tasks whose merge conflicts
	gatesFail map[string]bool // tasks whose gates fail on the merged result
	bases     map[string]string
	checked   map[string]string // the merges' Checkpoints
	mergeRuns map[string]string // the runs the merges name, by task
	onCommit  func(id string)   // called on each commit, when set
	// Where each activity ran, "activity name: queue" (the worker a
	// worktree is made on is "w-ID"; a run's steps say they ran on "end-NAME").
	queues []string
	heads  map[string]string // the merge's Heads
	own    string            // when set, the queue worktrees and steps say they ran on
	gone   map[string]bool   // tasks whose first commit finds their worker gone
	moved  []CommitInput     // the commits made after their worker was gone
	// dirty are the tasks whose worktree holds work not committed: their
	// merge fails, as the real merge-back's does, until they are committed.
	dirty map[string]bool
	run   any // the run workflow registered (nil: [Run])
}

// queueOf is the queue the fake says an activity ran on: its own, else what
// the activity's name and the task tell.
func (f *fakeGraph) queueOf(def string) string {
	if f.own != "" {
		return f.own
	}
	return def
}

// ran records the queue the activity ran on.
func (f *fakeGraph) ran(ctx context.Context, what string) {
	f.queues = append(f.queues, what+": "+activity.GetInfo(ctx).TaskQueue)
}

func (f *fakeGraph) step(ctx context.Context, in StepInput) (StepOutput, error) {
	f.mu.Lock()
	s := f.scripts[in.Run.Name]
	if !slices.Contains(f.started, in.Run.Name) {
		f.started = append(f.started, in.Run.Name)
		f.ran(ctx, "first step of "+in.Run.Name)
	}
	f.mu.Unlock()
	res, err := s.run(in)
	if in.Request.Kind == loop.StepIteration {
		res.Checkpoint = fmt.Sprintf("cp-%d", in.Request.Iteration)
	}
	return StepOutput{StepResult: res, Queue: f.queueOf("end-" + in.Run.Name)}, activityError(ctx, err)
}

func (f *fakeGraph) workTree(ctx context.Context, in WorkTreeInput) (WorkTreeOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.worktrees = append(f.worktrees, in.ID)
	if f.bases == nil {
		f.bases = map[string]string{}
	}
	f.bases[in.ID] = in.Base
	f.ran(ctx, "worktree of "+in.ID)
	return WorkTreeOutput{Queue: f.queueOf("w-" + in.ID)}, nil
}

func (f *fakeGraph) commit(ctx context.Context, in CommitInput) (CommitOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gone[in.Task.ID] && !in.Moved {
		return CommitOutput{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START, nil)
	}
	if in.Moved {
		f.moved = append(f.moved, in)
	}
	f.commits = append(f.commits, in.Task.ID)
	delete(f.dirty, in.Task.ID)
	if f.onCommit != nil {
		f.onCommit(in.Task.ID)
	}
	f.ran(ctx, "commit of "+in.Task.ID)
	return CommitOutput{Head: "head-" + in.Task.ID, Queue: activity.GetInfo(ctx).TaskQueue}, nil
}

func (f *fakeGraph) merge(ctx context.Context, in MergeInput) (MergeOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.merges = append(f.merges, in.Order)
	f.ran(ctx, "merge")
	for _, id := range in.Order {
		if f.dirty[id] {
			return MergeOutput{Err: fmt.Sprintf("merge back task %s: its worktree holds changes that are not on its branch", id)}, nil
		}
	}
	if in.Heads != nil && f.heads == nil {
		f.heads = map[string]string{}
	}
	maps.Copy(f.heads, in.Heads)
	if f.checked == nil {
		f.checked, f.mergeRuns = map[string]string{}, map[string]string{}
	}
	maps.Copy(f.checked, in.Checkpoints)
	for id, r := range in.Runs {
		f.mergeRuns[id] = r.Name
	}
	out := MergeOutput{Queue: activity.GetInfo(ctx).TaskQueue}
	for _, id := range in.Order {
		r := tasks.MergeResult{ID: id, Branch: "agentloop/" + in.Graph + "/" + id, Merged: !f.conflict[id] && !f.gatesFail[id], Conflict: f.conflict[id]}
		m := graph.Merge{ID: id, Branch: r.Branch, Merged: r.Merged, Head: "main-after-" + id}
		switch {
		case r.Conflict:
			r.Files = []string{"shared.go"}
			m.Issue, m.Files = tasks.MergeConflict, r.Files
		case f.gatesFail[id]:
			m.Issue, m.Gates = tasks.MergeGates, "tests (go test ./...) fails: TestX"
			if in.Heads[id] != "" { // on a fleet: the branch at the merged result, pushed
				if out.Heads == nil {
					out.Heads = map[string]string{}
				}
				out.Heads[id] = "merged-" + id
			}
		}
		out.Results = append(out.Results, r)
		out.Merges = append(out.Merges, m)
	}
	return out, nil
}

func newGraphEnv(t *testing.T, f *fakeGraph) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(tlog.NewStructuredLogger(testLogger()))
	env := suite.NewTestWorkflowEnvironment()
	f.register(env)
	return env
}

// register registers the workflows and the fake's activities on r.
func (f *fakeGraph) register(r registry) {
	run := f.run
	if run == nil {
		run = Run
	}
	r.RegisterWorkflowWithOptions(run, workflow.RegisterOptions{Name: WorkflowRun})
	r.RegisterWorkflowWithOptions(Graph, workflow.RegisterOptions{Name: WorkflowGraph})
	r.RegisterActivityWithOptions(f.step, activity.RegisterOptions{Name: ActivityStep})
	r.RegisterActivityWithOptions(noKeep, activity.RegisterOptions{Name: ActivityKeep})
	r.RegisterActivityWithOptions(f.workTree, activity.RegisterOptions{Name: ActivityWorkTree})
	r.RegisterActivityWithOptions(f.commit, activity.RegisterOptions{Name: ActivityCommit})
	r.RegisterActivityWithOptions(f.merge, activity.RegisterOptions{Name: ActivityMerge})
	r.RegisterActivityWithOptions(f.prune, activity.RegisterOptions{Name: ActivityPrune})
}

func (f *fakeGraph) prune(ctx context.Context, in PruneInput) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range slices.Sorted(maps.Keys(in.Heads)) {
		f.ran(ctx, "prune of "+id+" at "+in.Heads[id])
	}
	return nil, nil
}

// graphInput is a graph of the tasks (id, or "id:dep,dep"), each a run of
// input with the limits.
func graphInput(limits budget.Limits, specs ...string) GraphInput {
	in := GraphInput{Name: "g", Repo: "/repo", StateDir: "/repo/.agentloop", Base: "HEAD", Runs: map[string]RunInput{}}
	for _, s := range specs {
		id, deps, _ := strings.Cut(s, ":")
		t := tasks.Task{ID: id, Title: "do " + id}
		if deps != "" {
			t.DependsOn = strings.Split(deps, ",")
		}
		in.File.Tasks = append(in.File.Tasks, t)
		run := input(limits, true)
		run.Run.Name, run.Run.RunID, run.State.Name = "g-"+id, "r-"+id, "g-"+id
		run.Run.WorkDir = "/repo/.agentloop/worktrees/g/" + id
		in.Runs[id] = run
	}
	return in
}

func graphResult(t *testing.T, env *testsuite.TestWorkflowEnvironment) GraphResult {
	t.Helper()
	if !env.IsWorkflowCompleted() {
		t.Fatal("the graph workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("graph workflow error: %v", err)
	}
	var res GraphResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGraphWorkflow: four tasks, b after a, c escalating and answered through
// its own run workflow's update while the others go on, d failing; each task
// a child run workflow in its worktree, its work committed; each done task
// merged back as soon as it is done, one at a time (b starting from a's merged
// result), b's merge conflicting into an escalation.
func TestGraphWorkflow(t *testing.T) {
	green := []func(int) (evidence.Iteration, error){gate(true, 0)}
	f := &fakeGraph{conflict: map[string]bool{"b": true}, scripts: map[string]*script{
		"g-a": {results: green},
		"g-b": {results: green},
		"g-c": {results: []func(int) (evidence.Iteration, error){gate(false, 1), gate(true, 0)}},
		"g-d": {results: []func(int) (evidence.Iteration, error){agentExit(1)}},
	}}
	env := newGraphEnv(t, f)
	in := graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a", "b:a", "c", "d")
	in.Parallel = 2
	d := in.Runs["d"]
	d.Limits.MaxIterations = 3 // d aborts on its first failure, before its limit
	in.Runs["d"] = d
	var waiting GraphView
	answered := &updateResult{}
	env.RegisterDelayedCallback(func() {
		enc, err := env.QueryWorkflow(QueryGraphState)
		if err != nil {
			t.Errorf("graph query: %v", err)
			return
		}
		if err := enc.Get(&waiting); err != nil {
			t.Error(err)
		}
		if err := env.UpdateWorkflowByID(WorkflowID("g-c"), UpdateGuidance, "u1", answered, Guidance{Text: "one failing test is fine"}); err != nil {
			t.Errorf("update the escalated task's run: %v", err)
		}
	}, time.Minute)
	env.ExecuteWorkflow(WorkflowGraph, in)
	res := graphResult(t, env)
	if answered.err != nil {
		t.Errorf("guidance: %v", answered.err)
	}
	if !slices.Contains(waiting.Running, "c") || waiting.Ended {
		t.Errorf("while c waited: running %v, ended %v; want c running, the graph not ended", waiting.Running, waiting.Ended)
	}
	want := map[string]tasks.State{"a": tasks.StateSucceeded, "b": tasks.StateEscalated, "c": tasks.StateSucceeded, "d": tasks.StateFailed}
	for id, st := range want {
		if got := res.Outcomes[id].State; got != st {
			t.Errorf("task %s: %s (%s), want %s", id, got, res.Outcomes[id].Reason, st)
		}
	}
	if o := res.Outcomes["b"]; !strings.Contains(o.Reason, "conflicts in shared.go") || o.Branch != "agentloop/g/b" {
		t.Errorf("b: %+v, want its merge conflict as the reason", o)
	}
	if o := res.Outcomes["c"]; o.Iterations != 2 {
		t.Errorf("c: %d iterations, want 2 (one before the guidance, one after)", o.Iterations)
	}
	if ia, ib := slices.Index(f.started, "g-a"), slices.Index(f.started, "g-b"); ia < 0 || ib < ia {
		t.Errorf("runs started in the order %v: want b after a", f.started)
	}
	if len(f.worktrees) != 4 || len(f.commits) != 4 {
		t.Errorf("worktrees %v, commits %v: want one of each per task", f.worktrees, f.commits)
	}
	if want := [][]string{{"a"}, {"b"}, {"c"}}; !reflect.DeepEqual(f.merges, want) {
		t.Errorf("merges %v, want %v: each task as it is done", f.merges, want)
	}
	if f.bases["a"] != "HEAD" || f.bases["b"] != "main-after-a" {
		t.Errorf("worktrees made from %v: want a from the graph's base, b from a's merge", f.bases)
	}
	if f.mergeRuns["a"] != "g-a" || f.checked["a"] != "cp-1" || f.checked["c"] == "" {
		t.Errorf("the merges named runs %v, checkpoints %v: want each task's run, the last checkpoint of its loop, which succeeded there", f.mergeRuns, f.checked)
	}
	if o := res.Outcomes["b"]; o.Unmerged != tasks.MergeConflict {
		t.Errorf("b: %+v, want not merged for its conflict", o)
	}
	end := graphView(t, env)
	if !end.Ended || len(end.Running) != 0 || !slices.Equal(end.Merged, []string{"a", "c"}) {
		t.Errorf("at the end: ended %v, running %v, merged %v; want ended, none running, a and c merged", end.Ended, end.Running, end.Merged)
	}
}

// TestGraphWorkflowGlobalBudget: the parent asks the decision engine before
// each task starts; once the graph's tokens are spent the tasks not started
// are skipped, and a task that starts has its limits capped by what is left.
func TestGraphWorkflowGlobalBudget(t *testing.T) {
	spend := func(int) (evidence.Iteration, error) {
		it, _ := gate(true, 0)(0)
		it.Agent.Usage = evidence.Usage{InputTokens: 600, TokensKnown: true}
		return it, nil
	}
	f := &fakeGraph{scripts: map[string]*script{
		"g-a": {results: []func(int) (evidence.Iteration, error){spend}},
		"g-b": {results: []func(int) (evidence.Iteration, error){spend}},
		"g-c": {results: []func(int) (evidence.Iteration, error){spend}},
	}}
	env := newGraphEnv(t, f)
	in := graphInput(budget.Limits{MaxIterations: 3, FailureThreshold: 3}, "a", "b", "c")
	in.File.Budget = budget.Limits{MaxTokens: 1000}
	env.ExecuteWorkflow(WorkflowGraph, in)
	res := graphResult(t, env)
	if !res.BudgetExhausted {
		t.Error("the budget was not reported exhausted")
	}
	if o := res.Outcomes["a"]; o.State != tasks.StateSucceeded || o.Usage.InputTokens != 600 {
		t.Errorf("a: %+v, want succeeded with its 600 tokens", o)
	}
	// b starts with 600 of the 1000 tokens spent: its own limit is what is
	// left, which its 600 tokens overrun.
	if o := res.Outcomes["b"]; o.State != tasks.StateFailed || !strings.Contains(o.Reason, "400") {
		t.Errorf("b: %+v, want failed on its limit of the 400 tokens left", o)
	}
	if o := res.Outcomes["c"]; o.State != tasks.StateSkipped || !strings.Contains(o.Reason, "global budget") {
		t.Errorf("c: %+v, want skipped for the global budget", o)
	}
	if len(f.started) != 2 {
		t.Errorf("runs started: %v, want a and b only", f.started)
	}
}

// TestGraphWorkflowCountsRunningSpend: two tasks run in parallel; a tells its
// graph the 600 tokens of its first iteration and is still running when b
// ends with 500: the 1,100 tokens spent of the 1,000 stop c from starting,
// though the ended tasks alone (500) would have let it.
func TestGraphWorkflowCountsRunningSpend(t *testing.T) {
	spend := func(tokens int64, passed bool) func(int) (evidence.Iteration, error) {
		return func(int) (evidence.Iteration, error) {
			it, _ := gate(passed, 0)(0)
			if !passed {
				it, _ = gate(false, 1)(0)
			}
			it.Agent.Usage = evidence.Usage{InputTokens: tokens, TokensKnown: true}
			return it, nil
		}
	}
	// b's first iteration starts before a's spend is told (its cap is then
	// the whole 1,000), and ends after it: a loaded machine must not start b
	// only once a's 600 are known (its cap 400, its 500 over it).
	bStarted, aSecond, bCommitted := make(chan struct{}), make(chan struct{}), make(chan struct{})
	f := &fakeGraph{scripts: map[string]*script{
		"g-a": {results: []func(int) (evidence.Iteration, error){func(n int) (evidence.Iteration, error) {
			<-bStarted
			return spend(600, false)(n)
		}, func(n int) (evidence.Iteration, error) {
			close(aSecond) // a's run took its first iteration in, and told its graph
			<-bCommitted
			return spend(0, true)(n)
		}}},
		"g-b": {results: []func(int) (evidence.Iteration, error){func(n int) (evidence.Iteration, error) {
			close(bStarted)
			<-aSecond
			return spend(500, true)(n)
		}}},
		"g-c": {results: []func(int) (evidence.Iteration, error){spend(100, true)}},
	}}
	f.onCommit = func(id string) {
		if id == "b" {
			close(bCommitted)
		}
	}
	env := newGraphEnv(t, f)
	in := graphInput(budget.Limits{MaxIterations: 3, FailureThreshold: 3}, "a", "b", "c")
	in.Parallel = 2
	in.File.Budget = budget.Limits{MaxTokens: 1000}
	env.ExecuteWorkflow(WorkflowGraph, in)
	res := graphResult(t, env)
	if !res.BudgetExhausted {
		t.Error("the budget was not reported exhausted")
	}
	for id, want := range map[string]int64{"a": 600, "b": 500} {
		if o := res.Outcomes[id]; o.State != tasks.StateSucceeded || o.Usage.InputTokens != want {
			t.Errorf("%s: %+v, want succeeded with its %d tokens", id, o, want)
		}
	}
	if o := res.Outcomes["c"]; o.State != tasks.StateSkipped || !strings.Contains(o.Reason, "1,100 spent of 1,000") {
		t.Errorf("c: %+v, want skipped for the 1100 tokens spent of the global 1000", o)
	}
	if slices.Contains(f.started, "g-c") {
		t.Errorf("runs started: %v, want a and b only", f.started)
	}
}

// TestGraphWorkflowCountsAFailedTasksSpend: task a's run spends 600 tokens on
// its first iteration, then its second step fails on its own (the run's
// workflow ends in an error): a's outcome keeps its iteration and its 600
// tokens, and the graph counts them: b, started after a with 400 of the 1,000
// left, overruns its cap, and c is skipped for the global budget.
func TestGraphWorkflowCountsAFailedTasksSpend(t *testing.T) {
	spend := func(passed bool) func(int) (evidence.Iteration, error) {
		return func(int) (evidence.Iteration, error) {
			it, _ := gate(passed, 0)(0)
			if !passed {
				it, _ = gate(false, 1)(0)
			}
			it.Agent.Usage = evidence.Usage{InputTokens: 600, TokensKnown: true}
			return it, nil
		}
	}
	broken := func(int) (evidence.Iteration, error) {
		return evidence.Iteration{}, errors.New("the worker cannot build the run's plan")
	}
	f := &fakeGraph{scripts: map[string]*script{
		"g-a": {results: []func(int) (evidence.Iteration, error){spend(false), broken}},
		"g-b": {results: []func(int) (evidence.Iteration, error){spend(true)}},
		"g-c": {results: []func(int) (evidence.Iteration, error){spend(true)}},
	}}
	env := newGraphEnv(t, f)
	in := graphInput(budget.Limits{MaxIterations: 3, FailureThreshold: 3}, "a", "b", "c")
	in.File.Budget = budget.Limits{MaxTokens: 1000}
	env.ExecuteWorkflow(WorkflowGraph, in)
	res := graphResult(t, env)
	if o := res.Outcomes["a"]; o.State != tasks.StateFailed || o.Iterations != 1 || o.Usage.InputTokens != 600 ||
		!strings.Contains(o.Reason, "cannot build the run's plan") {
		t.Errorf("a: %+v, want failed with its step's error, its 1 iteration and its 600 tokens", o)
	}
	if o := res.Outcomes["b"]; o.State != tasks.StateFailed || !strings.Contains(o.Reason, "400") {
		t.Errorf("b: %+v, want failed on its limit of the 400 tokens left after a's 600", o)
	}
	if o := res.Outcomes["c"]; o.State != tasks.StateSkipped || !strings.Contains(o.Reason, "global budget") {
		t.Errorf("c: %+v, want skipped for the global budget (a's 600 and b's 600 spent)", o)
	}
	if !res.BudgetExhausted {
		t.Error("the budget was not reported exhausted")
	}
}

// TestGraphTasksRunOnAFleet: each task's worktree is made by any worker (or
// the one its run is pinned to), its run's steps go to that worker's queue, its
// work is committed on the queue its run ended on, and the merge-back runs on
// the graph's queue with the commits the branches were left at; a merged
// task whose work tree is elsewhere is named with where it stays.
func TestGraphTasksRunOnAFleet(t *testing.T) {
	green := []func(int) (evidence.Iteration, error){gate(true, 0)}
	f := &fakeGraph{scripts: map[string]*script{"g-a": {results: green}, "g-b": {results: green}}}
	env := newGraphEnv(t, f)
	in := graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a", "b")
	in.TaskQueue = "graph-machine"
	b := in.Runs["b"]
	b.Run.TaskQueue = "pinned"
	in.Runs["b"] = b
	env.ExecuteWorkflow(WorkflowGraph, in)
	res := graphResult(t, env)
	for _, id := range []string{"a", "b"} {
		if o := res.Outcomes[id]; o.State != tasks.StateSucceeded {
			t.Errorf("task %s: %s (%s), want succeeded", id, o.State, o.Reason)
		}
	}
	for _, want := range []string{
		"worktree of a: " + anyWorker, "worktree of b: pinned", // any worker; b's pinned one
		"first step of g-a: w-a", "first step of g-b: w-b", // the worker holding the worktree
		"commit of a: end-g-a", "commit of b: end-g-b", // where the run ended
		"merge: graph-machine",
		"prune of a at head-a: end-g-a", "prune of b at head-b: end-g-b", // where they are
	} {
		if !slices.Contains(f.queues, want) {
			t.Errorf("activities ran %q; want %q", f.queues, want)
		}
	}
	if want := map[string]string{"a": "head-a", "b": "head-b"}; !maps.Equal(f.heads, want) {
		t.Errorf("the merge was given the heads %v, want %v", f.heads, want)
	}
	if v := graphView(t, env); len(v.Warnings) != 0 {
		t.Errorf("warnings %q, want none", v.Warnings)
	}
}

// TestGraphStartedBeforeThePrune: a graph started by a build before merged
// tasks' worktrees were removed on the workers holding them says where they
// stay.
func TestGraphStartedBeforeThePrune(t *testing.T) {
	green := []func(int) (evidence.Iteration, error){gate(true, 0)}
	f := &fakeGraph{scripts: map[string]*script{"g-a": {results: green}}}
	env := newGraphEnv(t, f)
	env.OnGetVersion(fleetChange, workflow.DefaultVersion, fleetPrune).Return(fleetRebuild)
	env.OnGetVersion(mergeChange, workflow.DefaultVersion, mergeAsDone).Return(workflow.DefaultVersion)
	env.ExecuteWorkflow(WorkflowGraph, graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a"))
	graphResult(t, env)
	if slices.ContainsFunc(f.queues, func(q string) bool { return strings.HasPrefix(q, "prune") }) {
		t.Errorf("activities ran %q: want no prune", f.queues)
	}
	if v := graphView(t, env); len(v.Warnings) != 1 || !strings.Contains(v.Warnings[0], "stay in the clone of the worker of queue end-g-a") {
		t.Errorf("warnings %q: want where a's worktree stays", v.Warnings)
	}
}

// TestGraphStartedBeforeTheFleet: a graph started by a build before its tasks
// ran on a fleet (its history has no version marker) keeps its worktrees and
// commits on the graph's queue, as when it started.
func TestGraphStartedBeforeTheFleet(t *testing.T) {
	green := []func(int) (evidence.Iteration, error){gate(true, 0)}
	f := &fakeGraph{scripts: map[string]*script{"g-a": {results: green}}}
	env := newGraphEnv(t, f)
	env.OnGetVersion(fleetChange, workflow.DefaultVersion, fleetPrune).Return(workflow.DefaultVersion)
	env.OnGetVersion(mergeChange, workflow.DefaultVersion, mergeAsDone).Return(workflow.DefaultVersion)
	in := graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a")
	in.TaskQueue = "graph-machine"
	env.ExecuteWorkflow(WorkflowGraph, in)
	graphResult(t, env)
	want := []string{"worktree of a: graph-machine", "first step of g-a: " + anyWorker, "commit of a: graph-machine", "merge: graph-machine"}
	if !slices.Equal(f.queues, want) {
		t.Errorf("activities ran %q, want %q", f.queues, want)
	}
	if f.heads != nil {
		t.Errorf("the merge was given heads %v, want none", f.heads)
	}
}

// TestGraphCommitAfterTheWorkerIsGone: the worker holding a task's work tree
// is gone when its run ended: the commit goes to any worker, which rebuilds
// the work tree from the run's last checkpoint, and the merge-back takes the
// branch it committed.
func TestGraphCommitAfterTheWorkerIsGone(t *testing.T) {
	green := []func(int) (evidence.Iteration, error){gate(true, 0)}
	f := &fakeGraph{gone: map[string]bool{"a": true}, scripts: map[string]*script{"g-a": {results: green}}}
	env := newGraphEnv(t, f)
	env.ExecuteWorkflow(WorkflowGraph, graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a"))
	res := graphResult(t, env)
	if o := res.Outcomes["a"]; o.State != tasks.StateSucceeded {
		t.Errorf("task a: %s (%s), want succeeded", o.State, o.Reason)
	}
	if len(f.moved) != 1 || f.moved[0].Run == nil || f.moved[0].Run.Name != "g-a" || f.moved[0].Checkpoint != "cp-1" {
		t.Fatalf("commits after the worker was gone: %+v; want one naming run g-a and its last checkpoint", f.moved)
	}
	if want := "commit of a: " + anyWorker; !slices.Contains(f.queues, want) {
		t.Errorf("activities ran %q; want %q", f.queues, want)
	}
	if f.heads["a"] != "head-a" {
		t.Errorf("the merge was given the heads %v, want a's", f.heads)
	}
}

// TestGraphResumedTaskOverOnAFleet: a graph resumed after its earlier
// workflow ran a task to its end but could not merge it (a conflict, or the
// graph cancelled before the merge) makes no worktree and no commit for it on
// a fleet: its branch is merged where the earlier workflow left it (the
// commit it said, fetched from the shared remote when the merging clone does
// not have it there), and the worker holding its work tree prunes it; a graph
// whose earlier workflow said nothing of it (an older build) merges the
// branch as it is.
func TestGraphResumedTaskOverOnAFleet(t *testing.T) {
	for _, c := range []struct {
		name      string
		committed Committed
		head      string
		queues    []string
	}{
		{name: "committed on another worker", committed: Committed{Heads: map[string]string{"a": "head-a"}, Held: map[string]string{"a": "machine-b"}},
			head: "head-a", queues: []string{"merge: " + anyWorker, "prune of a at head-a: machine-b"}},
		{name: "not said", queues: []string{"merge: " + anyWorker}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeGraph{scripts: map[string]*script{}}
			env := newGraphEnv(t, f)
			in := graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a")
			a := in.Runs["a"]
			a.State.Status, a.State.TotalIterations = state.StatusSucceeded, 1
			in.Runs["a"] = a
			in.Committed = c.committed
			env.ExecuteWorkflow(WorkflowGraph, in)
			res := graphResult(t, env)
			if o := res.Outcomes["a"]; o.State != tasks.StateSucceeded {
				t.Errorf("task a: %s (%s), want succeeded", o.State, o.Reason)
			}
			if !slices.Equal(f.queues, c.queues) {
				t.Errorf("activities ran %q, want %q", f.queues, c.queues)
			}
			if f.heads["a"] != c.head {
				t.Errorf("the merge was given a's head %q, want %q", f.heads["a"], c.head)
			}
		})
	}
}

// anyWorker is the test environment's workflow queue, polled by any worker.
const anyWorker = "default-test-taskqueue"

func graphView(t *testing.T, env *testsuite.TestWorkflowEnvironment) GraphView {
	t.Helper()
	enc, err := env.QueryWorkflow(QueryGraphState)
	if err != nil {
		t.Fatal(err)
	}
	var v GraphView
	if err := enc.Get(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRunRefOn: a run's paths on a worker's clone at another path.
func TestRunRefOn(t *testing.T) {
	task := func(stateDir string) *GraphTask { return &GraphTask{Graph: "g", Repo: "/repo", StateDir: stateDir} }
	for _, c := range []struct {
		name, clone string
		in          RunRef
		want        RunRef
	}{
		{"a run, no clone", "", RunRef{WorkDir: "/repo"}, RunRef{WorkDir: "/repo"}},
		{"a run", "/w/clone", RunRef{WorkDir: "/repo"}, RunRef{WorkDir: "/w/clone"}},
		{"a task, no clone", "", RunRef{WorkDir: "/repo/.agentloop/worktrees/g/a", Task: task("/repo/.agentloop")},
			RunRef{WorkDir: "/repo/.agentloop/worktrees/g/a", Task: task("/repo/.agentloop")}},
		{"a task", "/w/clone", RunRef{WorkDir: "/repo/.agentloop/worktrees/g/a", Task: task("/repo/.agentloop")},
			RunRef{WorkDir: "/w/clone/.agentloop/worktrees/g/a", Task: &GraphTask{Graph: "g", Repo: "/w/clone", StateDir: "/w/clone/.agentloop"}}},
		{"a task, its state folder outside the repository", "/w/clone", RunRef{WorkDir: "/state/worktrees/g/a", Task: task("/state")},
			RunRef{WorkDir: "/state/worktrees/g/a", Task: &GraphTask{Graph: "g", Repo: "/w/clone", StateDir: "/state"}}},
	} {
		got := c.in.On(c.clone)
		if got.WorkDir != c.want.WorkDir || (got.Task == nil) != (c.want.Task == nil) || got.Task != nil && !reflect.DeepEqual(*got.Task, *c.want.Task) {
			t.Errorf("%s: %+v (task %+v), want %+v (task %+v)", c.name, got, got.Task, c.want, c.want.Task)
		}
	}
}

// TestGraphWorkflowResumes: a graph resumed where its last workflow left it.
// a succeeded and was merged: it is not run or merged again. b was
// interrupted after an iteration: its run continues from its state. c's run
// succeeded but its merge conflicted: it is not run again, only merged. d
// runs afresh, its limits capped by what is left of the global budget after
// what every task spent, in this workflow and before.
func TestGraphWorkflowResumes(t *testing.T) {
	spend := func(tokens int64) func(int) (evidence.Iteration, error) {
		return func(int) (evidence.Iteration, error) {
			it, _ := gate(true, 0)(0)
			it.Agent.Usage = evidence.Usage{InputTokens: tokens, TokensKnown: true}
			return it, nil
		}
	}
	f := &fakeGraph{scripts: map[string]*script{
		"g-b": {results: []func(int) (evidence.Iteration, error){spend(50)}},
		"g-d": {results: []func(int) (evidence.Iteration, error){spend(100)}},
	}}
	env := newGraphEnv(t, f)
	in := graphInput(budget.Limits{MaxIterations: 3, FailureThreshold: 3}, "a", "b", "c", "d:a")
	in.File.Budget = budget.Limits{MaxTokens: 1000}
	used := func(tokens int64) evidence.Usage { return evidence.Usage{InputTokens: tokens, TokensKnown: true} }
	in.Prior = map[string]tasks.Outcome{
		"a": {State: tasks.StateSucceeded, Seq: 1, Usage: used(300)},
		"b": {State: tasks.StateInterrupted, Iterations: 1, Usage: used(200)},
		"c": {State: tasks.StateEscalated, Seq: 2, Usage: used(400), Reason: "merging branch agentloop/g/c conflicts in x.go"},
	}
	in.Merged = []string{"a"}
	delete(in.Runs, "a")
	b := in.Runs["b"]
	b.State.Status, b.State.TotalIterations, b.State.Iteration, b.State.Spend.Usage = state.StatusInterrupted, 1, 1, used(200)
	b.State.History = []state.Record{{N: 1}}
	in.Runs["b"] = b
	c := in.Runs["c"]
	c.State.Status, c.State.Reason, c.State.TotalIterations, c.State.Spend.Usage = state.StatusSucceeded, "all required gates passed", 2, used(400)
	in.Runs["c"] = c
	env.ExecuteWorkflow(WorkflowGraph, in)
	res := graphResult(t, env)
	if slices.Contains(f.worktrees, "a") || slices.Contains(f.started, "g-a") || slices.Contains(f.started, "g-c") {
		t.Errorf("worktrees %v, runs started %v: a and c must not run again", f.worktrees, f.started)
	}
	if r := f.scripts["g-b"].requests; len(r) != 1 || r[0].Iteration != 2 {
		t.Errorf("b's steps %+v, want one, iteration 2 (its run continued)", r)
	}
	if o := res.Outcomes["b"]; o.State != tasks.StateSucceeded || o.Iterations != 2 || o.Usage.InputTokens != 250 {
		t.Errorf("b: %+v, want succeeded after 2 iterations and 250 tokens", o)
	}
	if o := res.Outcomes["c"]; o.State != tasks.StateSucceeded || o.Iterations != 2 {
		t.Errorf("c: %+v, want succeeded as its run ended, merged this time", o)
	}
	// 300 + 250 + 400 were spent when d started: 50 tokens were left for it.
	if o := res.Outcomes["d"]; o.State != tasks.StateFailed || !strings.Contains(o.Reason, "50") {
		t.Errorf("d: %+v, want failed on its limit of the 50 tokens left", o)
	}
	if want := [][]string{{"b"}, {"c"}}; !reflect.DeepEqual(f.merges, want) {
		t.Errorf("merges %v, want %v, not a again", f.merges, want)
	}
	if !slices.Equal(res.Merged, []string{"a", "b", "c"}) {
		t.Errorf("merged %v, want a (before), b and c", res.Merged)
	}
}

// TestGraphWorkflowMergeGates: a task whose required gates fail on the merged
// result is not merged: it is escalated, saying so, and its dependent never
// starts.
func TestGraphWorkflowMergeGates(t *testing.T) {
	green := []func(int) (evidence.Iteration, error){gate(true, 0)}
	f := &fakeGraph{gatesFail: map[string]bool{"a": true}, scripts: map[string]*script{"g-a": {results: green}, "g-b": {results: green}}}
	env := newGraphEnv(t, f)
	env.ExecuteWorkflow(WorkflowGraph, graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a", "b:a"))
	res := graphResult(t, env)
	if o := res.Outcomes["a"]; o.State != tasks.StateEscalated || o.Unmerged != tasks.MergeGates || !strings.Contains(o.Reason, "tests (go test ./...) fails: TestX") {
		t.Errorf("a: %+v, want escalated for its gates on the merged result", o)
	}
	if o := res.Outcomes["b"]; o.State != tasks.StateBlocked {
		t.Errorf("b: %+v, want blocked behind a", o)
	}
	if slices.Contains(f.started, "g-b") || len(res.Merged) != 0 {
		t.Errorf("runs started %v, merged %v: want b never started, nothing merged", f.started, res.Merged)
	}
	if h := res.Committed.Heads["a"]; h != "merged-a" {
		t.Errorf("a's head in the graph's result %q, want merged-a, where the merge left its branch: a resume on another worker starts there", h)
	}
	unfinished := graph.ListUnfinished("g", graphInput(budget.Limits{}, "a", "b:a").File.Tasks, res.Outcomes, res.Merged, graph.Commands{TaskFile: "t.yaml", Engine: "--engine temporal"})
	if len(unfinished) != 2 || !strings.Contains(unfinished[0].Next, "agentloop resume g-a --guidance \"...\" --engine temporal") {
		t.Errorf("unfinished %+v, want a with the command that answers it, and b", unfinished)
	}
}

// TestGraphWorkflowHoldsATaskForGuidance: a graph run again after a task's
// gates failed on the merged result, no guidance given since, leaves that
// task escalated as it was: no worktree, commit or merge for it, and its
// dependent blocked. Its loop done again since (resumed with guidance), its
// merge is tried; and a graph started before the rule tried it too.
func TestGraphWorkflowHoldsATaskForGuidance(t *testing.T) {
	held := tasks.Outcome{State: tasks.StateEscalated, Unmerged: tasks.MergeGates, Iterations: 1, Reason: "its required gates fail once merged"}
	for _, tt := range []struct {
		name   string
		iters  int  // b's run's iterations now
		before bool // a graph started before the rule
		merged bool
	}{
		{"no guidance since", 1, false, false},
		{"done again since", 2, false, true},
		{"started before the rule", 1, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			green := []func(int) (evidence.Iteration, error){gate(true, 0)}
			f := &fakeGraph{scripts: map[string]*script{"g-c": {results: green}}}
			env := newGraphEnv(t, f)
			if tt.before {
				env.OnGetVersion(holdChange, workflow.DefaultVersion, holdForGuidance).Return(workflow.DefaultVersion)
			}
			in := graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a", "b", "c:b")
			in.Prior = map[string]tasks.Outcome{"a": {State: tasks.StateSucceeded, Seq: 1, Iterations: 1}, "b": held}
			in.Merged = []string{"a"}
			delete(in.Runs, "a")
			b := in.Runs["b"]
			b.State.Status, b.State.TotalIterations, b.State.Tree = state.StatusSucceeded, tt.iters, "cp-b"
			in.Runs["b"] = b
			env.ExecuteWorkflow(WorkflowGraph, in)
			res := graphResult(t, env)
			if !tt.merged {
				if o := res.Outcomes["b"]; o.State != tasks.StateEscalated || o.Unmerged != tasks.MergeGates || o.Reason != held.Reason {
					t.Errorf("b: %+v, want escalated as it was", o)
				}
				if len(f.merges) != 0 || len(f.worktrees) != 0 || len(f.commits) != 0 || len(f.started) != 0 {
					t.Errorf("merges %v, worktrees %v, commits %v, runs %v: want none", f.merges, f.worktrees, f.commits, f.started)
				}
				if o := res.Outcomes["c"]; o.State != tasks.StateBlocked || !slices.Equal(res.Merged, []string{"a"}) {
					t.Errorf("c: %+v, merged %v: want c blocked behind b, only a merged", o, res.Merged)
				}
				return
			}
			if want := [][]string{{"b"}, {"c"}}; !reflect.DeepEqual(f.merges, want) || !slices.Equal(res.Merged, []string{"a", "b", "c"}) {
				t.Errorf("merges %v, merged %v: want b's merge tried, then c's", f.merges, res.Merged)
			}
			if f.checked["b"] != "cp-b" {
				t.Errorf("b's merge names the checkpoint %q, want its run's last, cp-b", f.checked["b"])
			}
		})
	}
}

// TestGraphWorkflowMergesADoneTaskFirst: a graph resumed after its earlier
// workflow ran a task to its end without merging it (a kill, a refused merge)
// merges it before its dependent starts, from the merged result.
func TestGraphWorkflowMergesADoneTaskFirst(t *testing.T) {
	green := []func(int) (evidence.Iteration, error){gate(true, 0)}
	f := &fakeGraph{scripts: map[string]*script{"g-b": {results: green}}}
	env := newGraphEnv(t, f)
	in := graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a", "b:a")
	in.Prior = map[string]tasks.Outcome{"a": {State: tasks.StateSucceeded, Seq: 1, Iterations: 1}}
	a := in.Runs["a"]
	a.State.Status, a.State.TotalIterations = state.StatusSucceeded, 1
	in.Runs["a"] = a
	env.ExecuteWorkflow(WorkflowGraph, in)
	res := graphResult(t, env)
	if slices.Contains(f.started, "g-a") {
		t.Errorf("runs started %v: a's run is over, only its merge is tried", f.started)
	}
	if want := [][]string{{"a"}, {"b"}}; !reflect.DeepEqual(f.merges, want) {
		t.Errorf("merges %v, want %v", f.merges, want)
	}
	if f.bases["b"] != "main-after-a" || !slices.Equal(res.Merged, []string{"a", "b"}) {
		t.Errorf("b made from %q, merged %v: want b from a's merge, both merged", f.bases["b"], res.Merged)
	}
}

// TestGraphStartedBeforeMergeAsDone: a graph started by a build before tasks
// merged as they were done (its history has no marker) keeps its course: its
// tasks start from the graph's base and merge once they all ended.
func TestGraphStartedBeforeMergeAsDone(t *testing.T) {
	green := []func(int) (evidence.Iteration, error){gate(true, 0)}
	f := &fakeGraph{scripts: map[string]*script{"g-a": {results: green}, "g-b": {results: green}}}
	env := newGraphEnv(t, f)
	env.OnGetVersion(mergeChange, workflow.DefaultVersion, mergeAsDone).Return(workflow.DefaultVersion)
	env.ExecuteWorkflow(WorkflowGraph, graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a", "b:a"))
	res := graphResult(t, env)
	if want := [][]string{{"a", "b"}}; !reflect.DeepEqual(f.merges, want) {
		t.Errorf("merges %v, want %v: one merge-back at the end", f.merges, want)
	}
	if f.bases["b"] != "HEAD" || len(f.mergeRuns) != 0 {
		t.Errorf("b made from %q, merges named runs %v: want the graph's base and none", f.bases["b"], f.mergeRuns)
	}
	if !slices.Equal(res.Merged, []string{"a", "b"}) {
		t.Errorf("merged %v", res.Merged)
	}
}

// TestGraphWorkflowCancelledAfterARunEnded: the graph is cancelled once the
// run of its task ended, before the task's work is committed (the
// cancellation comes with the run's result) or as its commit is scheduled:
// the work is committed all the same, the graph ends interrupted with nothing
// merged, and the graph run again merges the task, its run not run again.
func TestGraphWorkflowCancelledAfterARunEnded(t *testing.T) {
	for _, tt := range []struct {
		name string
		// asCommitting: cancelled once the parent took the run's result in
		// (its commit scheduled); else by the run itself as it ends.
		asCommitting bool
		before       bool // a graph started before the work was committed then
	}{
		{"with the run's result", false, false},
		{"as its commit is scheduled", true, false},
		{"started before", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			green := []func(int) (evidence.Iteration, error){gate(true, 0)}
			// a's worktree holds its work until it is committed; a merge of
			// it before fails, as the real merge-back's does.
			f := &fakeGraph{dirty: map[string]bool{"a": true}, scripts: map[string]*script{"g-a": {results: green}}}
			var env *testsuite.TestWorkflowEnvironment
			if !tt.asCommitting {
				f.run = func(ctx workflow.Context, in RunInput) (RunResult, error) {
					res, err := Run(ctx, in)
					env.CancelWorkflow()
					return res, err
				}
			}
			env = newGraphEnv(t, f)
			if tt.before {
				env.OnGetVersion(commitChange, workflow.DefaultVersion, commitWhenCancelled).Return(workflow.DefaultVersion)
			}
			if tt.asCommitting {
				env.SetOnChildWorkflowCompletedListener(func(*workflow.Info, converter.EncodedValue, error) { env.CancelWorkflow() })
			}
			in := graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a")
			env.ExecuteWorkflow(WorkflowGraph, in)
			res := graphResult(t, env)
			if !res.Interrupted || len(res.Merged) != 0 || len(f.merges) != 0 {
				t.Errorf("the cancelled graph: interrupted %v, merged %v, merges %v; want interrupted, nothing merged", res.Interrupted, res.Merged, f.merges)
			}
			if tt.before {
				if len(f.commits) != 0 {
					t.Errorf("commits %v, want none: the graph keeps the course it started on", f.commits)
				}
				return
			}
			if !slices.Equal(f.commits, []string{"a"}) {
				t.Errorf("commits %v, want a's work committed though the graph was cancelled", f.commits)
			}

			// Run again, as the client builds it from where the graph and
			// a's run were left.
			again := newGraphEnv(t, f)
			in.Prior, in.Merged = res.Outcomes, res.Merged
			a := in.Runs["a"]
			a.State.Status, a.State.TotalIterations = state.StatusSucceeded, 1
			in.Runs["a"] = a
			again.ExecuteWorkflow(WorkflowGraph, in)
			res = graphResult(t, again)
			if o := res.Outcomes["a"]; o.State != tasks.StateSucceeded || !slices.Equal(res.Merged, []string{"a"}) {
				t.Errorf("a run again: %s (%s), merged %v; want it succeeded and merged", o.State, o.Reason, res.Merged)
			}
			if len(f.started) != 1 {
				t.Errorf("runs started %v, want a's once", f.started)
			}
		})
	}
}

// TestGraphWorkflowCancelledCommitIsBounded: the commit of a task whose run
// is over, going on after its graph was cancelled, is given a bounded time:
// a commit that never succeeds (every attempt fails, and is tried again) is
// cancelled once that time is up, and the cancelled graph ends.
func TestGraphWorkflowCancelledCommitIsBounded(t *testing.T) {
	green := []func(int) (evidence.Iteration, error){gate(true, 0)}
	f := &fakeGraph{scripts: map[string]*script{"g-a": {results: green}}}
	var env *testsuite.TestWorkflowEnvironment
	var cancelledAt time.Time
	f.run = func(ctx workflow.Context, in RunInput) (RunResult, error) {
		res, err := Run(ctx, in)
		cancelledAt = workflow.Now(ctx)
		env.CancelWorkflow()
		return res, err
	}
	env = newGraphEnv(t, f)
	attempts := 0
	env.OnActivity(ActivityCommit, mock.Anything, mock.Anything).Return(func(context.Context, CommitInput) (CommitOutput, error) {
		attempts++
		return CommitOutput{}, errors.New("the worker's clone is unreachable")
	})
	in := graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a")
	env.ExecuteWorkflow(WorkflowGraph, in)
	res := graphResult(t, env)
	if !res.Interrupted || res.Outcomes["a"].State != tasks.StateInterrupted || len(res.Merged) != 0 {
		t.Errorf("the cancelled graph: interrupted %v, a %+v, merged %v; want interrupted, a interrupted, nothing merged", res.Interrupted, res.Outcomes["a"], res.Merged)
	}
	bound := commitGrace + 2*in.Runs["a"].heartbeatTimeout()
	if took := env.Now().Sub(cancelledAt); took < bound || took > bound+2*time.Minute || attempts < 2 {
		t.Errorf("the commit was tried %d times over %v after the graph was cancelled, want it tried again until %v, then given up", attempts, took, bound)
	}
}

// TestGraphTaskRunMakesItsWorkTreeAsTheGraphDid: on a fleet, the task's run
// (and a commit taken over after its worker is gone) carries the base and
// head its worktree was made from (its dependencies' merged work, its
// branch's last commit), for a worker that makes the worktree again; not the
// graph's base.
func TestGraphTaskRunMakesItsWorkTreeAsTheGraphDid(t *testing.T) {
	green := []func(int) (evidence.Iteration, error){gate(true, 0)}
	f := &fakeGraph{gone: map[string]bool{"b": true}, scripts: map[string]*script{"g-a": {results: green}, "g-b": {results: green}}}
	env := newGraphEnv(t, f)
	in := graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a", "b:a")
	for id, r := range in.Runs {
		r.Run.Task = &GraphTask{Graph: "g", Repo: in.Repo, StateDir: in.StateDir, Task: tasks.Task{ID: id}, Base: in.Base}
		in.Runs[id] = r
	}
	in.Committed = Committed{Heads: map[string]string{"b": "head-b-before"}, Held: map[string]string{"b": "machine-b"}}
	env.ExecuteWorkflow(WorkflowGraph, in)
	graphResult(t, env)
	if len(f.moved) != 1 || f.moved[0].Run == nil || f.moved[0].Run.Task == nil {
		t.Fatalf("commits after the worker was gone: %+v; want b's, naming its run and task", f.moved)
	}
	got := f.moved[0].Run.Task
	if got.Base != f.bases["b"] || got.Base == in.Base {
		t.Errorf("task b's run carries the base %q, want %q, its worktree's (a's work merged), not the graph's %q", got.Base, f.bases["b"], in.Base)
	}
	if got.Head != "head-b-before" {
		t.Errorf("task b's run carries the head %q, want head-b-before, where its branch was left", got.Head)
	}
}
