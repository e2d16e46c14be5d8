package temporal

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// startSlowWorker is startWorker whose steps take pause each.
func startSlowWorker(t *testing.T, c client.Client, queue string, s *script, pause time.Duration) {
	t.Helper()
	var mu sync.Mutex
	step := func(ctx context.Context, in StepInput) (state.StepResult, error) {
		time.Sleep(pause) // a step's work, for the test's updates to come meanwhile
		mu.Lock()
		defer mu.Unlock()
		return s.step(ctx, in)
	}
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: WorkflowRun})
	w.RegisterActivityWithOptions(step, activity.RegisterOptions{Name: ActivityStep})
	w.RegisterActivityWithOptions(noKeep, activity.RegisterOptions{Name: ActivityKeep})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
}

// TestRealServerRenews: on a real dev server, a run whose workflow
// continues as new every 3 iterations ends as the run that never does
// (the same outcome, iterations, records and events in its state query);
// guidance sent to it while it continues, again and again, reaches its
// prompts, none lost; and a stop sent while it continues ends it,
// interrupted.
func TestRealServerRenews(t *testing.T) {
	_, c := newDevServer(t)
	defer c.Close()
	queue := "renew-" + fmt.Sprint(time.Now().UnixNano())
	plain := func() *script { return &script{results: []func(int) (evidence.Iteration, error){agentExit(0)}} }
	startSlowWorker(t, c, queue, plain(), 0)
	ended := func(name string) (loop.Outcome, View) {
		t.Helper()
		var out loop.Outcome
		if err := c.GetWorkflow(t.Context(), WorkflowID(name), "").Get(t.Context(), &out); err != nil {
			t.Fatalf("run %s: %v", name, err)
		}
		v, err := Query(t.Context(), c, name)
		if err != nil {
			t.Fatalf("query run %s: %v", name, err)
		}
		return out, v
	}

	t.Run("same end", func(t *testing.T) {
		for _, name := range []string{"once", "renewed"} {
			in := input(budget.Limits{MaxIterations: 7}, false)
			in.Run.Name = name
			if name == "renewed" {
				in.RenewEvery = 3
			}
			if err := Start(t.Context(), c, Server{TaskQueue: queue}, in, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		want, wv := ended("once")
		got, gv := ended("renewed")
		if !reflect.DeepEqual(got, want) || want.Status != state.StatusCompleted {
			t.Errorf("renewed run: %+v; want %+v, completed", got, want)
		}
		if gv.State.TotalIterations != 7 || len(gv.State.History) != len(wv.State.History) || len(gv.Events) != len(wv.Events) || gv.State.Status != wv.State.Status {
			t.Errorf("renewed run's query: %s, %d iterations, %d records, %d events; want %s, 7, %d, %d",
				gv.State.Status, gv.State.TotalIterations, len(gv.State.History), len(gv.Events), wv.State.Status, len(wv.State.History), len(wv.Events))
		}
		for i := range gv.Events {
			if i < len(wv.Events) && gv.Events[i].Type() != wv.Events[i].Type() {
				t.Errorf("event %d: %s; want %s", i, gv.Events[i].Type(), wv.Events[i].Type())
			}
		}
		if n := renewals(t, c, "renewed"); n != 2 {
			t.Errorf("the renewed run's workflow continued as new %d times; want 2", n)
		}
		// Its last workflow, started with what the one before carried, and
		// its first, which continued as new.
		keepHistory(t, c, "renewed")
		keepRunHistory(t, "renewed-first", historyOf(t, c, WorkflowID("renewed"), firstRun(t, c, "renewed")))
	})

	t.Run("guidance", func(t *testing.T) {
		q := queue + "-guide"
		s := plain()
		startSlowWorker(t, c, q, s, 100*time.Millisecond)
		in := input(budget.Limits{MaxIterations: 20}, false)
		in.Run.Name, in.RenewEvery = "guided", 1
		if err := Start(t.Context(), c, Server{TaskQueue: q}, in, time.Now()); err != nil {
			t.Fatal(err)
		}
		var sent []string
		for i := range 10 {
			id := fmt.Sprintf("g%d", i)
			if _, err := SteerRun(t.Context(), c, "guided", Steer{ID: id, Text: "note " + id, At: time.Now()}); err != nil {
				t.Errorf("guidance %s: %v", id, err)
				continue
			}
			sent = append(sent, id)
			time.Sleep(70 * time.Millisecond)
		}
		out, v := ended("guided")
		if out.Status != state.StatusCompleted || v.State.TotalIterations != 20 {
			t.Errorf("guided run: %+v after %d iterations; want completed after 20", out, v.State.TotalIterations)
		}
		for _, id := range sent {
			if !v.State.HasHandoff(id) {
				t.Errorf("guidance %s was taken but never applied: lost", id)
			}
		}
		if n := renewals(t, c, "guided"); n < 15 {
			t.Errorf("the guided run continued as new %d times; want one an iteration", n)
		}
	})

	t.Run("stop", func(t *testing.T) {
		q := queue + "-stop"
		startSlowWorker(t, c, q, plain(), 100*time.Millisecond)
		in := input(budget.Limits{MaxIterations: 1000}, false)
		in.Run.Name, in.RenewEvery = "stopped", 1
		if err := Start(t.Context(), c, Server{TaskQueue: q}, in, time.Now()); err != nil {
			t.Fatal(err)
		}
		waitView(t, c, "stopped", func(v View) bool { return v.State.TotalIterations >= 3 })
		if err := Cancel(t.Context(), c, "stopped"); err != nil {
			t.Fatal(err)
		}
		out, v := ended("stopped")
		if out.Status != state.StatusInterrupted || v.State.Status != state.StatusInterrupted || v.State.TotalIterations > 10 {
			t.Errorf("stopped run: %+v (state %s) after %d iterations; want interrupted soon", out, v.State.Status, v.State.TotalIterations)
		}
	})
}

// firstRun is the run ID of the first workflow of the run name.
func firstRun(t *testing.T, c client.Client, name string) string {
	t.Helper()
	runID := ""
	for {
		h := historyOf(t, c, WorkflowID(name), runID)
		prev := h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
		if prev == "" {
			return h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetOriginalExecutionRunId()
		}
		runID = prev
	}
}

// renewals is how many times the run name's workflow continued as new:
// the runs before its last.
func renewals(t *testing.T, c client.Client, name string) int {
	t.Helper()
	n := 0
	runID := ""
	for {
		it := c.GetWorkflowHistory(t.Context(), WorkflowID(name), runID, false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		ev, err := it.Next()
		if err != nil {
			t.Fatalf("the start of run %s's workflow %s: %v", name, runID, err)
		}
		prev := ev.GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
		if prev == "" {
			return n
		}
		n++
		runID = prev
	}
}
