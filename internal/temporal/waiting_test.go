package temporal

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/tasks"
)

// TestRealServerWaitingSearchAttribute: on a real dev server whose namespace
// has the search attribute AgentloopWaiting, a run that escalates sets it to
// "escalated", and `temporal workflow list --query` finds the run by it (the
// command docs/fleet.md gives); once answered, the attribute is gone (the
// command no longer lists it) and the run goes on to its end. The history replays on this build (and, with
// -update, is kept for TestReplayRecordedHistories).
func TestRealServerWaitingSearchAttribute(t *testing.T) {
	srv, c := newDevServer(t, "--search-attribute", SearchWaiting+"=Keyword")
	defer c.Close()
	queue := "search-" + time.Now().Format("150405.000000000")
	s := &script{results: []func(int) (evidence.Iteration, error){gate(false, 2), gate(false, 2), gate(true, 0)}}
	in := input(budget.Limits{MaxIterations: 2, FailureThreshold: 5}, true)
	in.Run.Name = "searched"
	w := startWorker(t, c, queue, s)
	defer w.Stop()
	if err := Start(t.Context(), c, Server{TaskQueue: queue}, in, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitView(t, c, "searched", func(v View) bool { return v.Waiting })
	query := SearchWaiting + " = 'escalated'"
	waitListed(t, c, query, "searched", true)
	// docs/fleet.md's command: every run that waits now.
	now := SearchWaiting + " IS NOT NULL AND ExecutionStatus = 'Running'"
	out, err := exec.Command(srv.bin, "workflow", "list", "--address", srv.addr, "--query", now).CombinedOutput()
	if err != nil || !strings.Contains(string(out), WorkflowID("searched")) {
		t.Errorf("temporal workflow list --query %q: %v\n%s\nwant the waiting run's workflow %s", now, err, out, WorkflowID("searched"))
	}

	if err := Guide(t.Context(), c, "searched", Guidance{Text: "keep the API"}); err != nil {
		t.Fatal(err)
	}
	if err := c.GetWorkflow(t.Context(), WorkflowID("searched"), "").Get(t.Context(), nil); err != nil {
		t.Fatalf("the answered run: %v", err)
	}
	waitListed(t, c, query, "searched", false)
	waitListed(t, c, SearchWaiting+" IS NULL", "searched", true)
	out, err = exec.Command(srv.bin, "workflow", "list", "--address", srv.addr, "--query", now).CombinedOutput()
	if err != nil || strings.Contains(string(out), WorkflowID("searched")) {
		t.Errorf("temporal workflow list --query %q once answered: %v\n%s\nwant no %s", now, err, out, WorkflowID("searched"))
	}
	keepHistory(t, c, "searched")
}

// TestRealServerGraphTaskSearchAttribute: a task graph started on a server
// whose namespace has AgentloopWaiting: its task's run that escalates sets it
// ([StartGraph] tells each task's run), and the list finds the task's run
// by it; answered, the graph ends.
func TestRealServerGraphTaskSearchAttribute(t *testing.T) {
	_, c := newDevServer(t, "--search-attribute", SearchWaiting+"=Keyword")
	defer c.Close()
	queue := "graph-search-" + time.Now().Format("150405.000000000")
	f := &fakeGraph{own: queue, scripts: map[string]*script{"g-a": {results: []func(int) (evidence.Iteration, error){gate(false, 2), gate(true, 0)}}}}
	w := worker.New(c, queue, worker.Options{})
	f.register(w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	in := graphInput(budget.Limits{MaxIterations: 1, FailureThreshold: 5}, "a")
	if err := StartGraph(t.Context(), c, Server{TaskQueue: queue}, in); err != nil {
		t.Fatal(err)
	}
	waitView(t, c, "g-a", func(v View) bool { return v.Waiting })
	waitListed(t, c, SearchWaiting+" = 'escalated'", "g-a", true)
	if err := Guide(t.Context(), c, "g-a", Guidance{Text: "keep the API"}); err != nil {
		t.Fatal(err)
	}
	var res GraphResult
	if err := c.GetWorkflow(t.Context(), GraphWorkflowID("g", ""), "").Get(t.Context(), &res); err != nil {
		t.Fatal(err)
	}
	if o := res.Outcomes["a"]; o.State != tasks.StateSucceeded {
		t.Errorf("task a: %s (%s), want succeeded once answered", o.State, o.Reason)
	}
	waitListed(t, c, SearchWaiting+" IS NULL", "g-a", true)
}

// TestRealServerNoSearchAttribute: on a dev server whose namespace does not
// have AgentloopWaiting, a run that escalates never sets it (setting it
// would fail its workflow task again and again) and never fails a workflow
// task: it waits, is answered and ends as ever, its memo alone saying it
// waited.
func TestRealServerNoSearchAttribute(t *testing.T) {
	_, c := newDevServer(t)
	defer c.Close()
	queue := "nosearch-" + time.Now().Format("150405.000000000")
	s := &script{results: []func(int) (evidence.Iteration, error){gate(false, 2), gate(false, 2), gate(true, 0)}}
	in := input(budget.Limits{MaxIterations: 2, FailureThreshold: 5}, true)
	in.Run.Name = "unsearched"
	w := startWorker(t, c, queue, s)
	defer w.Stop()
	if err := Start(t.Context(), c, Server{TaskQueue: queue}, in, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitView(t, c, "unsearched", func(v View) bool { return v.Waiting })
	waitMemo(t, c, "unsearched", true)
	if err := Guide(t.Context(), c, "unsearched", Guidance{Text: "keep the API"}); err != nil {
		t.Fatal(err)
	}
	if err := c.GetWorkflow(t.Context(), WorkflowID("unsearched"), "").Get(t.Context(), nil); err != nil {
		t.Fatalf("the answered run: %v", err)
	}
	var kinds []enumspb.EventType
	for _, ev := range history(t, c, WorkflowID("unsearched")).GetEvents() {
		kinds = append(kinds, ev.GetEventType())
		// The SDK upserts TemporalChangeVersion (a system attribute) with
		// each version marker; the run must set no attribute of its own.
		set := ev.GetUpsertWorkflowSearchAttributesEventAttributes().GetSearchAttributes().GetIndexedFields()
		if _, ok := set[SearchWaiting]; ok {
			t.Errorf("event %d of the run's history sets %s", ev.GetEventId(), SearchWaiting)
		}
	}
	if slices.Contains(kinds, enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED) {
		t.Errorf("a workflow task of the run failed: %v", kinds)
	}
	if !slices.Contains(kinds, enumspb.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED) {
		t.Errorf("the run's history has no memo upsert: %v", kinds)
	}
}

// waitListed waits until the server's list, asked with query, lists the
// workflow of run name (listed) or does not. The list is eventually
// consistent.
func waitListed(t *testing.T, c client.Client, query, name string, listed bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := c.ListWorkflow(t.Context(), &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf("%s AND WorkflowId = '%s'", query, WorkflowID(name)),
		})
		if err != nil {
			t.Fatalf("list %q: %v", query, err)
		}
		if (len(resp.GetExecutions()) > 0) == listed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the list asked %q never said run %s is listed=%v", query, name, listed)
		}
		time.Sleep(100 * time.Millisecond) // the list has no push
	}
}
