package temporal

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// The histories recorded on a real dev server (TestRealServer and
// TestRealServerRetriedStep with -update), each replayed in every go test:
// a run to its end, a run that escalated and got guidance by the update (the
// server restarted while it waited), a run whose iteration was retried
// after its attempt stopped giving signs of life, and a run that set the
// search attribute AgentloopWaiting while it waited
// (TestRealServerWaitingSearchAttribute), and a run that reserved its
// iterations in the ledger workflow, was parked and approved
// (TestRealServerSharedCap, which records the ledger workflow's history too:
// "ledger"); and, recorded by older builds this one must take on their old
// courses, a run to its end and one that was guided from before the runs
// wrote their files ("plain-before-keep", "guided-before-keep"), and the run
// that waited from before an iteration's files went with the run's next step
// instead of a keep activity of their own ("searched-keep-1"), and a run to
// its end from before its start put MemoKept in its memo ("plain-memo-1");
// and a run whose workflow continued as new (TestRealServerRenews): its
// first workflow, which did ("renewed-first"), and its last, started with
// what the one before carried ("renewed").
var recordedHistories = []string{"plain", "guided", "retried", "searched", "spend-a", "plain-before-keep", "guided-before-keep", "searched-keep-1", "plain-memo-1", "renewed", "renewed-first"}

// The graph histories, recorded on a real dev server (TestRealServerGraph with
// -update): a graph of two tasks, b after a, recorded by this build ("graph"),
// and by builds this one must take on their old courses: from before a
// graph's tasks ran on a fleet ("graph-before-fleet"), before a commit whose
// worker is gone went to another ("graph-fleet-1"), before the merged
// tasks' worktrees were removed on the workers holding them ("graph-fleet-2"),
// before tasks merged as soon as each was done ("graph-fleet-3"), before
// a task's work was committed when its graph was cancelled ("graph-merge-1"),
// and before a failed task's outcome kept what it did and spent
// ("graph-commit-1").
var recordedGraphHistories = []string{"graph", "graph-before-fleet", "graph-fleet-1", "graph-fleet-2", "graph-fleet-3", "graph-merge-1", "graph-commit-1"}

// workflowOf is the workflow a recorded history is of: its registered name,
// its function and its ID.
func workflowOf(name string) (string, any, string) {
	if name == "ledger" {
		return WorkflowLedger, Ledger, LedgerWorkflowID
	}
	if slices.Contains(recordedGraphHistories, name) {
		return WorkflowGraph, Graph, GraphWorkflowID("graph", "")
	}
	return WorkflowRun, Run, WorkflowID(name)
}

// rerecord says how to record the histories again.
const rerecord = "record them again with: PATH=<dir of the temporal CLI>:$PATH go test -run TestRealServer ./internal/temporal -update"

// replayError replays h on this build's workflow.
func replayError(h *historypb.History, name string, wf any) error {
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(wf, workflow.RegisterOptions{Name: name})
	return r.ReplayWorkflowHistory(tlog.NewStructuredLogger(slog.New(slog.DiscardHandler)), h)
}

// replay fails the test when h does not replay on this build's workflow.
func replay(t *testing.T, name string, h *historypb.History) {
	t.Helper()
	wfName, wf, _ := workflowOf(name)
	if err := replayError(h, wfName, wf); err != nil {
		t.Errorf("the recorded history %s no longer replays on this build's workflow: %v\n"+
			"The workflow now takes other steps on the same history, so the runs an older build "+
			"started cannot go on under this one. If that is not meant, find what in the workflow "+
			"became non-deterministic (time, randomness, map order, goroutines: use workflow.Now, "+
			"workflow.Go, sorted keys). If it is meant, guard the change with workflow.GetVersion "+
			"for the runs under way, then %s", name, err, rerecord)
	}
}

func readHistory(t *testing.T, name string) *historypb.History {
	t.Helper()
	f := filepath.Join("testdata", "histories", name+".json")
	b, err := os.ReadFile(f)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no recorded history %s: %s", f, rerecord)
	}
	if err != nil {
		t.Fatal(err)
	}
	h, err := client.HistoryFromJSON(bytes.NewReader(b), client.HistoryJSONOptions{})
	if err != nil {
		t.Fatalf("%s: %v; %s", f, err, rerecord)
	}
	if len(h.Events) == 0 {
		t.Fatalf("%s: an empty history; %s", f, rerecord)
	}
	return h
}

// keepHistory replays the finished workflow of run name and, with -update,
// records its history in testdata/histories.
func keepHistory(t *testing.T, c client.Client, name string) {
	t.Helper()
	_, _, id := workflowOf(name)
	keepRunHistory(t, name, history(t, c, id))
}

// keepRunHistory replays h, the history of a workflow of the recorded
// history name, and with -update records it in testdata/histories.
func keepRunHistory(t *testing.T, name string, h *historypb.History) {
	t.Helper()
	replay(t, name, h)
	if !*update {
		return
	}
	b, err := protojson.MarshalOptions{Indent: "  "}.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "histories", name+".json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReplayRecordedHistories replays the histories recorded on a real server
// by this build's workflow: a change that makes the workflow take other steps
// on the same history fails here, before it strands the runs under way.
func TestReplayRecordedHistories(t *testing.T) {
	for _, name := range slices.Concat(recordedHistories, recordedGraphHistories, []string{"ledger"}) {
		t.Run(name, func(t *testing.T) {
			replay(t, name, readHistory(t, name))
		})
	}
}

// TestReplayCatchesAChangedWorkflow: the replay tells a workflow that takes
// other steps on a recorded history (here, one that sleeps before the loop).
func TestReplayCatchesAChangedWorkflow(t *testing.T) {
	changed := func(ctx workflow.Context, in RunInput) (RunResult, error) {
		if err := workflow.Sleep(ctx, time.Second); err != nil {
			return RunResult{}, err
		}
		return Run(ctx, in)
	}
	for _, name := range recordedHistories {
		if err := replayError(readHistory(t, name), WorkflowRun, changed); err == nil {
			t.Errorf("history %s replayed on a workflow that sleeps first", name)
		}
	}
}

// TestRealServerRetriedStep: on a real dev server, the first attempt of
// iteration 2 stops giving signs of life (as when its worker dies); the server
// runs the step again once its heartbeat timeout passes, and the run ends with
// each iteration counted once.
func TestRealServerRetriedStep(t *testing.T) {
	_, c := newDevServer(t)
	defer c.Close()
	queue := "retried-" + time.Now().Format("150405.000000000")
	s := &stalling{stall: 2}
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: WorkflowRun})
	w.RegisterActivityWithOptions(s.step, activity.RegisterOptions{Name: ActivityStep})
	w.RegisterActivityWithOptions(noKeep, activity.RegisterOptions{Name: ActivityKeep})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	in := input(budget.Limits{MaxIterations: 3, FailureThreshold: 3}, false)
	in.Run.Name = "retried"
	in.HeartbeatTimeout = time.Second
	if err := Start(t.Context(), c, Server{TaskQueue: queue}, in, time.Now()); err != nil {
		t.Fatal(err)
	}
	var out loop.Outcome
	if err := c.GetWorkflow(t.Context(), WorkflowID("retried"), "").Get(t.Context(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != state.StatusCompleted {
		t.Errorf("outcome %s %q, want completed", out.Status, out.Reason)
	}
	s.mu.Lock()
	attempts := s.attempts
	s.mu.Unlock()
	if want := []int{1, 1, 2, 1}; !slices.Equal(attempts, want) {
		t.Errorf("activity attempts %v, want %v (iteration 2 run twice)", attempts, want)
	}
	v := waitView(t, c, "retried", func(View) bool { return true })
	if v.State.TotalIterations != 3 || len(v.State.History) != 3 {
		t.Errorf("%d iterations, %d recorded; want 3 and 3 (a retried step counted once)", v.State.TotalIterations, len(v.State.History))
	}
	keepHistory(t, c, "retried")
}

// stalling is a step activity whose first attempt of iteration stall gives no
// sign of life until the server gives up on it.
type stalling struct {
	stall    int
	mu       sync.Mutex
	attempts []int // each step's attempt, in order
}

func (s *stalling) step(ctx context.Context, in StepInput) (state.StepResult, error) {
	attempt := int(activity.GetInfo(ctx).Attempt)
	s.mu.Lock()
	s.attempts = append(s.attempts, attempt)
	s.mu.Unlock()
	if in.Request.Iteration == s.stall && attempt == 1 {
		// No heartbeat: the server times the attempt out and runs the step
		// again; what this attempt returns afterwards is dropped.
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
		}
		return state.StepResult{}, errors.New("the stalled attempt gave up")
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ev := evidence.Iteration{Started: t0, Finished: t0.Add(time.Second)}
	return state.StepResult{Started: ev.Started, Finished: ev.Finished, Iteration: ev}, nil
}

// TestRealServerGraph: on a real dev server, a graph of two tasks, b after a,
// each task's worktree made by a worker that says it holds it on its own
// queue, where the task's steps and commit then go; both are merged back.
// Its history is replayed, and with -update kept in testdata/histories.
func TestRealServerGraph(t *testing.T) {
	_, c := newDevServer(t)
	defer c.Close()
	queue := "graph-" + time.Now().Format("150405.000000000")
	green := []func(int) (evidence.Iteration, error){gate(true, 0)}
	f := &fakeGraph{own: queue + "-own", scripts: map[string]*script{"g-a": {results: green}, "g-b": {results: green}}}
	var workers []worker.Worker
	for _, q := range []string{queue, f.own} {
		w := worker.New(c, q, worker.Options{})
		f.register(w)
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		workers = append(workers, w)
	}
	stopped := false
	stop := func() {
		if !stopped {
			for _, w := range workers {
				w.Stop()
			}
			stopped = true
		}
	}
	defer stop()
	in := graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 1}, "a", "b:a")
	in.Name = "graph"
	if err := StartGraph(t.Context(), c, Server{TaskQueue: queue}, in); err != nil {
		t.Fatal(err)
	}
	var res GraphResult
	if err := c.GetWorkflow(t.Context(), GraphWorkflowID("graph", ""), "").Get(t.Context(), &res); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if o := res.Outcomes[id]; o.State != tasks.StateSucceeded {
			t.Errorf("task %s: %s (%s), want succeeded", id, o.State, o.Reason)
		}
	}
	f.mu.Lock()
	ran := slices.Clone(f.queues)
	f.mu.Unlock()
	if want := "commit of b: " + f.own; !slices.Contains(ran, want) {
		t.Errorf("activities ran %q; want %q", ran, want)
	}
	// With no worker left, the ended graph and its tasks' runs are read
	// from their histories.
	stop()
	v, err := QueryGraph(t.Context(), c, "graph", "")
	if err != nil {
		t.Fatalf("read the ended graph without a worker: %v", err)
	}
	if !v.Ended || !slices.Equal(v.Merged, []string{"a", "b"}) || v.Outcomes["b"].State != tasks.StateSucceeded {
		t.Errorf("the ended graph read from its history: ended %v, merged %v, b %s; want ended, a and b merged, b succeeded", v.Ended, v.Merged, v.Outcomes["b"].State)
	}
	if rv, err := Query(t.Context(), c, "g-b"); err != nil || rv.State.Status != state.StatusSucceeded || rv.State.TotalIterations != 1 {
		t.Errorf("task b's run read from its history: %s after %d iterations (%v); want succeeded after 1", rv.State.Status, rv.State.TotalIterations, err)
	}
	// A repository with an identity and no graph of the name reads the one
	// started without one (by an older build), and resumes from it.
	if lv, err := QueryGraph(t.Context(), c, "graph", "0123456789"); err != nil || !lv.Ended {
		t.Errorf("the graph started without a repository's identity, read from a repository with one: ended %v (%v), want it read", lv.Ended, err)
	}
	if last, ok, err := LastGraph(t.Context(), c, "graph", "0123456789"); err != nil || !ok || !slices.Equal(last.Merged, []string{"a", "b"}) {
		t.Errorf("the last graph of the name, from a repository with an identity: %v, %v, merged %v; want the one started without one", ok, err, last.Merged)
	}
	keepHistory(t, c, "graph")
}

// TestRealServerGraphFailedTaskSpend: on a real dev server, the run of task a
// spends 600 tokens on its first iteration and then fails on its own (its
// workflow ends in an error): the error that reaches the graph through the
// server carries what the run did, so a's outcome keeps its iteration and
// tokens and b is skipped for the global budget of 500.
func TestRealServerGraphFailedTaskSpend(t *testing.T) {
	_, c := newDevServer(t)
	defer c.Close()
	queue := "graph-failed-" + time.Now().Format("150405.000000000")
	spend := func(int) (evidence.Iteration, error) {
		it, _ := gate(false, 1)(0)
		it.Agent.Usage = evidence.Usage{InputTokens: 600, TokensKnown: true}
		return it, nil
	}
	broken := func(int) (evidence.Iteration, error) {
		return evidence.Iteration{}, errors.New("the plan cannot be built")
	}
	// The steps say they ran on a queue of their own, which a worker polls:
	// the failed task's work is committed there.
	f := &fakeGraph{own: queue + "-own", scripts: map[string]*script{
		"g-a": {results: []func(int) (evidence.Iteration, error){spend, broken}},
		"g-b": {results: []func(int) (evidence.Iteration, error){gate(true, 0)}},
	}}
	for _, q := range []string{queue, f.own} {
		w := worker.New(c, q, worker.Options{})
		f.register(w)
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
	}
	in := graphInput(budget.Limits{MaxIterations: 3, FailureThreshold: 3}, "a", "b")
	in.Name = "graph-failed"
	in.File.Budget = budget.Limits{MaxTokens: 500}
	if err := StartGraph(t.Context(), c, Server{TaskQueue: queue}, in); err != nil {
		t.Fatal(err)
	}
	var res GraphResult
	if err := c.GetWorkflow(t.Context(), GraphWorkflowID("graph-failed", ""), "").Get(t.Context(), &res); err != nil {
		t.Fatal(err)
	}
	if o := res.Outcomes["a"]; o.State != tasks.StateFailed || o.Iterations != 1 || o.Usage.InputTokens != 600 {
		t.Errorf("a: %+v, want failed with its 1 iteration and 600 tokens", o)
	}
	if o := res.Outcomes["b"]; o.State != tasks.StateSkipped {
		t.Errorf("b: %+v, want skipped for the global budget (a's 600 of 500)", o)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if want := "commit of a: " + f.own; !slices.Contains(f.queues, want) {
		t.Errorf("activities ran %q; want %q: the failed task's work committed where its run ended", f.queues, want)
	}
}
