package temporal

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
)

// TestMeasureLongRun prints the size of a run's workflow history at N
// iterations (AGENTLOOP_MEASURE=50,200,…): a measure, not a check.
func TestMeasureLongRun(t *testing.T) {
	ns := os.Getenv("AGENTLOOP_MEASURE")
	if ns == "" {
		t.Skip("AGENTLOOP_MEASURE=N,… measures a run of N iterations' history")
	}
	_, c := newDevServer(t)
	defer c.Close()
	queue := "measure-" + fmt.Sprint(time.Now().UnixNano())
	for _, f := range splitComma(ns) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		// A plain loop (no gates): it goes on to its limit.
		s := &script{results: []func(int) (evidence.Iteration, error){agentExit(0)}}
		q := fmt.Sprintf("%s-%d", queue, n)
		w := startWorker(t, c, q, s)
		in := input(budget.Limits{MaxIterations: n}, false)
		in.Run.Name = fmt.Sprintf("long%d", n)
		start := time.Now()
		if err := Start(t.Context(), c, Server{TaskQueue: q}, in, time.Now()); err != nil {
			t.Fatal(err)
		}
		var out loop.Outcome
		if err := c.GetWorkflow(t.Context(), WorkflowID(in.Run.Name), "").Get(t.Context(), &out); err != nil {
			t.Logf("run of %d: %v", n, err)
		}
		// Every workflow of the run, from its last back to its first.
		var events, size, steps, workflows, largest int
		for runID := ""; ; workflows++ {
			h := historyOf(t, c, WorkflowID(in.Run.Name), runID)
			events += len(h.GetEvents())
			largest = max(largest, len(h.GetEvents()))
			size += proto.Size(h)
			for _, ev := range h.GetEvents() {
				if ev.GetEventType() == enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED {
					steps++
				}
			}
			runID = h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
			if runID == "" {
				workflows++
				break
			}
		}
		v, _ := Query(t.Context(), c, in.Run.Name)
		st, _ := json.Marshal(v.State)
		evs, _ := json.Marshal(v.Events)
		z, _ := zipKept(kept{History: v.State.History, Events: v.Events})
		tv, _ := QueryFrom(t.Context(), c, in.Run.Name, len(v.Events))
		tail, _ := json.Marshal(tv)
		t.Logf("N=%d: %s %q, %d iterations, %d events (%.1f an iteration), %d bytes (%.0f an iteration), %d steps, %s; %d workflows, the largest %d events; the state query: state %d bytes, %d events %d bytes; a follower's look (the tail query) %d bytes; carried gzipped %d bytes",
			n, out.Status, out.Reason, v.State.TotalIterations, events, float64(events)/float64(n), size, float64(size)/float64(n), steps, time.Since(start).Round(time.Second),
			workflows, largest, len(st), len(v.Events), len(evs), len(tail), len(z))
		w.Stop()
	}
}

func historyOf(t *testing.T, c client.Client, id, runID string) *historypb.History {
	t.Helper()
	it := c.GetWorkflowHistory(t.Context(), id, runID, false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
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

func splitComma(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != ',' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}
