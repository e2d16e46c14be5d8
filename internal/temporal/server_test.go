package temporal

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.temporal.io/api/common/v1"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/testenv"
)

var update = flag.Bool("update", false, "record the workflow histories of the real-server test into testdata/histories")

// devServer is a Temporal dev server on a random port of 127.0.0.1, its state in
// a file so that it can be killed and started again.
type devServer struct {
	s         *testenv.TemporalDevServer
	bin, addr string // the temporal CLI, the server's host:port
}

func (s *devServer) kill() { s.s.Kill() }

// restart starts the killed server again on its port and its file.
func (s *devServer) restart(t *testing.T) { s.s.Restart(t) }

// startDevServer starts a dev server for the test, with more flags of
// start-dev if given.
func startDevServer(t *testing.T, args ...string) *devServer {
	t.Helper()
	bin := testenv.NeedTool(t, "temporal")
	s := testenv.StartTemporal(t, bin, filepath.Join(t.TempDir(), "temporal.db"), args...)
	return &devServer{s: s, bin: bin, addr: s.Addr}
}

// newDevServer starts a dev server for the test, with more flags of
// start-dev if given, and connects to it.
func newDevServer(t *testing.T, args ...string) (*devServer, client.Client) {
	t.Helper()
	srv := startDevServer(t, args...)
	return srv, dialReady(t, srv.addr)
}

// freeAddr is an address of 127.0.0.1 nothing listens on (when it is
// returned).
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// dialReady connects once the server answers.
func dialReady(t *testing.T, addr string) client.Client {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := Dial(t.Context(), Server{Address: addr, Namespace: "default"}, log)
		if err == nil {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dev server did not come up: %v", err)
		}
		time.Sleep(200 * time.Millisecond) // polling a process that gives no readiness event
	}
}

func startWorker(t *testing.T, c client.Client, queue string, s *script) worker.Worker {
	t.Helper()
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: WorkflowRun})
	w.RegisterActivityWithOptions(s.step, activity.RegisterOptions{Name: ActivityStep})
	w.RegisterActivityWithOptions(noKeep, activity.RegisterOptions{Name: ActivityKeep})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	return w
}

// waitView polls the run's query until ok says so (a query has no push).
func waitView(t *testing.T, c client.Client, name string, ok func(View) bool) View {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		v, err := Query(t.Context(), c, name)
		if err == nil && ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s: gave up waiting (last %+v, %v)", name, v.State.Status, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRealServer runs the workflow on a real dev server: a loop to its end, and a
// loop that waits for guidance while the server is killed and started again; the
// guidance reaches it and it finishes. Each history is then replayed, and with
// -update kept in testdata/histories for TestReplayRecordedHistories.
func TestRealServer(t *testing.T) {
	srv, c := newDevServer(t)
	defer func() { c.Close() }() // the client of the restarted server
	queue := "test-" + fmt.Sprint(time.Now().UnixNano())
	s := &script{results: []func(int) (evidence.Iteration, error){gate(false, 2), gate(false, 2), gate(true, 0)}}
	w := startWorker(t, c, queue, s)

	plain := input(budget.Limits{MaxIterations: 3, FailureThreshold: 3}, false)
	plain.Run.Name = "plain"
	plainScript := &script{results: []func(int) (evidence.Iteration, error){agentExit(0)}}
	pw := startWorker(t, c, queue+"-plain", plainScript)
	if err := Start(t.Context(), c, Server{TaskQueue: queue + "-plain"}, plain, time.Now()); err != nil {
		t.Fatal(err)
	}
	var out loop.Outcome
	if err := c.GetWorkflow(t.Context(), WorkflowID("plain"), "").Get(t.Context(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != state.StatusCompleted {
		t.Errorf("plain run: %s %q, want completed", out.Status, out.Reason)
	}
	// Its start said it keeps its memo: no version marker, search
	// attribute or memo of its workflow's own before its first step (three
	// events and a write of the server's list a run).
	for _, ev := range history(t, c, WorkflowID("plain")).GetEvents() {
		switch ev.GetEventType() {
		case enums.EVENT_TYPE_MARKER_RECORDED, enums.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, enums.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED:
			t.Errorf("event %d of the plain run: %s; want its steps' and workflow tasks' alone", ev.GetEventId(), ev.GetEventType())
		}
	}
	waitMemo(t, c, "plain", false)
	var byWorker View
	if q, err := c.QueryWorkflow(t.Context(), WorkflowID("plain"), "", QueryState); err != nil || q.Get(&byWorker) != nil {
		t.Fatalf("query the ended run on its worker: %v", err)
	}

	guided := input(budget.Limits{MaxIterations: 2, FailureThreshold: 5}, true)
	guided.Run.Name = "guided"
	if err := Start(t.Context(), c, Server{TaskQueue: queue}, guided, time.Now()); err != nil {
		t.Fatal(err)
	}
	asks := waitView(t, c, "guided", func(v View) bool { return v.Waiting })
	checkQueryFrom(t, c, "guided", asks)
	w.Stop()
	pw.Stop()
	c.Close()
	srv.kill()
	srv.restart(t)
	c = dialReady(t, srv.addr)
	// No worker polls the plain run's queue now: the ended run is read
	// from its history, as its worker's query read it.
	if v, err := Query(t.Context(), c, "plain"); err != nil {
		t.Errorf("read the ended run without a worker: %v", err)
	} else if diff := cmp.Diff(byWorker, v); diff != "" {
		t.Errorf("the ended run read from its history (-its worker's query +here):\n%s", diff)
	}
	checkQueryFrom(t, c, "plain", byWorker)
	w = startWorker(t, c, queue, s)
	defer w.Stop()
	if err := Guide(t.Context(), c, "guided", Guidance{Text: "keep the API"}); err != nil {
		t.Fatalf("guidance after the server restarted: %v", err)
	}
	if err := c.GetWorkflow(t.Context(), WorkflowID("guided"), "").Get(t.Context(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != state.StatusSucceeded {
		t.Errorf("guided run: %s %q, want succeeded", out.Status, out.Reason)
	}
	v := waitView(t, c, "guided", func(View) bool { return true })
	if v.State.TotalIterations != 3 || v.State.Iteration != 1 {
		t.Errorf("guided run: %d iterations in all, %d since the guidance; want 3 and 1", v.State.TotalIterations, v.State.Iteration)
	}

	for _, name := range []string{"plain", "guided"} {
		keepHistory(t, c, name)
	}
}

func history(t *testing.T, c client.Client, id string) *historypb.History {
	t.Helper()
	it := c.GetWorkflowHistory(context.WithoutCancel(t.Context()), id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatalf("history of %s: %v", id, err)
		}
		h.Events = append(h.Events, ev)
	}
	return h
}

// TestRealServerWaitingMemo: on a real dev server, a run that escalates shows
// what it waits for in its workflow's memo, which the server's list returns
// and the inbox reads with no worker alive; once answered, the memo no
// longer says it waits, and the inbox no longer lists it.
func TestRealServerWaitingMemo(t *testing.T) {
	_, c := newDevServer(t)
	defer c.Close()
	queue := "memo-" + time.Now().Format("150405.000000000")
	s := &script{results: []func(int) (evidence.Iteration, error){gate(false, 2), gate(false, 2), gate(true, 0)}}
	in := input(budget.Limits{MaxIterations: 2, FailureThreshold: 5}, true)
	in.Run.Name = "asks"
	w := startWorker(t, c, queue, s)
	if err := Start(t.Context(), c, Server{TaskQueue: queue}, in, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitView(t, c, "asks", func(v View) bool { return v.Waiting })
	w.Stop() // the memo and the inbox need no worker

	item := waitMemo(t, c, "asks", true)
	if item.Run != "asks" || item.Question == "" || item.RunID != "r1" || len(item.Options) == 0 {
		t.Errorf("the memo of the waiting run: %+v; want its run, question, run ID and options", item)
	}
	items, err := Waiting(t.Context(), c)
	if err != nil || len(items) != 1 || items[0].Run != "asks" || items[0].Question != item.Question {
		t.Errorf("the inbox with no worker: %+v (%v); want the run asks and its question", items, err)
	}

	w = startWorker(t, c, queue, s)
	defer w.Stop()
	if err := Guide(t.Context(), c, "asks", Guidance{Text: "keep the API"}); err != nil {
		t.Fatal(err)
	}
	waitMemo(t, c, "asks", false)
	if items, err := Waiting(t.Context(), c); err != nil || len(items) != 0 {
		t.Errorf("the inbox once the run was answered: %+v (%v); want nothing", items, err)
	}
}

// waitMemo waits until the list of the server says of the run name's workflow
// that it waits for a person (waiting) or that it does not, and returns what
// its memo says it waits for. The list is eventually consistent.
func waitMemo(t *testing.T, c client.Client, name string, waiting bool) decision.Waiting {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := c.ListWorkflow(t.Context(), &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf("WorkflowId = '%s'", WorkflowID(name)),
		})
		if err != nil {
			t.Fatal(err)
		}
		var last *common.Memo
		if ex := resp.GetExecutions(); len(ex) > 0 {
			last = ex[0].GetMemo()
			item, w, kept := memoWaiting(last)
			if kept && w == waiting {
				return item
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the list never said run %s waits=%v: its memo %v", name, waiting, last)
		}
		time.Sleep(100 * time.Millisecond) // the list has no push
	}
}
