package temporal

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/state"
)

// checkQueryFrom: QueryFrom reads the run name (whose whole view is whole)
// from each of its events on, and past its last: the events from there, the
// state without its history, the rest as the whole view has it.
func checkQueryFrom(t *testing.T, c client.Client, name string, whole View) {
	t.Helper()
	if len(whole.Events) < 2 || len(whole.State.History) == 0 {
		t.Fatalf("run %s: %d events and %d records, want a run with some", name, len(whole.Events), len(whole.State.History))
	}
	for _, from := range []int{0, 1, len(whole.Events), len(whole.Events) + 5} {
		v, err := QueryFrom(t.Context(), c, name, from)
		if err != nil {
			t.Fatalf("QueryFrom(%s, %d): %v", name, from, err)
		}
		want := whole
		want.State.History = nil
		want.EventsFrom = min(from, len(whole.Events))
		want.Events = whole.Events[want.EventsFrom:]
		if diff := cmp.Diff(want, v); diff != "" {
			t.Errorf("QueryFrom(%s, %d) (-want +got):\n%s", name, from, diff)
		}
	}
}

// TestQueryFromAnOlderWorker: a run whose worker is of a build before the
// tail query is read with its state query, cut as the tail query would.
func TestQueryFromAnOlderWorker(t *testing.T) {
	_, c := newDevServer(t)
	defer c.Close()
	queue := "older-" + fmt.Sprint(time.Now().UnixNano())
	st := state.State{Name: "old", Status: state.StatusRunning, History: []state.Record{{N: 1}}}
	at := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	events := []state.Event{{Time: at, Data: state.RunStarted{Procedure: "build"}}, {Time: at, Data: state.BaselineStarted{}}, {Time: at, Data: state.BaselineFinished{Gates: 1}}}
	older := func(ctx workflow.Context, _ RunInput) (RunResult, error) {
		if err := workflow.SetQueryHandler(ctx, QueryState, func() (View, error) { return View{State: st, Events: events}, nil }); err != nil {
			return RunResult{}, err
		}
		return RunResult{}, workflow.Await(ctx, func() bool { return false })
	}
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(older, workflow.RegisterOptions{Name: WorkflowRun})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := c.ExecuteWorkflow(t.Context(), client.StartWorkflowOptions{ID: WorkflowID("old"), TaskQueue: queue}, WorkflowRun, RunInput{}); err != nil {
		t.Fatal(err)
	}
	checkQueryFrom(t, c, "old", View{State: st, Events: events})
}
