package temporal

import (
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// TestWorkflowSteered: guidance sent by the steer update reaches every later
// prompt and is acknowledged once (a hand-off event, the state's history),
// even sent twice; a stop ends the run interrupted after the iteration under
// way; a run waiting for its escalation's answer, and one that ended, refuse
// to be steered.
func TestWorkflowSteered(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	t.Run("guidance", func(t *testing.T) {
		s := &script{results: []func(int) (evidence.Iteration, error){agentExit(0)}}
		env := newEnv(t, s)
		first, again, empty := &updateResult{}, &updateResult{}, &updateResult{}
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(UpdateSteer, "g1", first, Steer{ID: "g1", Text: "use the v2 API", At: at, By: "ann"})
			env.UpdateWorkflow(UpdateSteer, "g1b", again, Steer{ID: "g1", Text: "use the v2 API", At: at, By: "ann"})
			env.UpdateWorkflow(UpdateSteer, "e", empty, Steer{ID: "g2", Text: " "})
		}, 0)
		env.ExecuteWorkflow(WorkflowRun, input(budget.Limits{MaxIterations: 3, FailureThreshold: 3}, false))
		out := result(t, env)
		if out.Status != state.StatusCompleted {
			t.Errorf("outcome %s %q, want completed", out.Status, out.Reason)
		}
		if first.err != nil || again.err != nil {
			t.Errorf("steer: %v, %v", first.err, again.err)
		}
		if empty.err == nil || !strings.Contains(empty.err.Error(), "empty") {
			t.Errorf("empty guidance: %v, want refused as empty", empty.err)
		}
		var iters []loop.StepRequest
		for _, r := range s.requests {
			if r.Kind == loop.StepIteration {
				iters = append(iters, r)
			}
		}
		if len(iters) != 3 || iters[len(iters)-1].Steer != "use the v2 API" {
			t.Fatalf("iterations %+v: want 3, the last with the guidance", iters)
		}
		v := queryView(t, env)
		var acks []state.HandoffRecorded
		for _, ev := range v.Events {
			if h, ok := ev.Data.(state.HandoffRecorded); ok {
				acks = append(acks, h)
			}
		}
		if len(acks) != 1 || acks[0].Kind != state.HandoffGuide || acks[0].ID != "g1" || acks[0].By != "ann" {
			t.Errorf("hand-off events %+v: want the guidance g1 once", acks)
		}
		if v.State.Steer != "use the v2 API" || len(v.State.Handoffs) != 1 || v.State.Handoffs[0].ID != "g1" {
			t.Errorf("state steer %q, hand-offs %+v", v.State.Steer, v.State.Handoffs)
		}
		n := acks[0].Iteration
		for i, r := range iters {
			if want := i+1 >= n; (r.Steer != "") != want {
				t.Errorf("iteration %d carries %q; the guidance was applied in iteration %d", i+1, r.Steer, n)
			}
		}
	})
	t.Run("stop", func(t *testing.T) {
		s := &script{results: []func(int) (evidence.Iteration, error){agentExit(0)}}
		env := newEnv(t, s)
		stop := &updateResult{}
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(UpdateSteer, "s", stop, Steer{Stop: true, At: at, By: "ann"})
		}, 0)
		env.ExecuteWorkflow(WorkflowRun, input(budget.Limits{MaxIterations: 5, FailureThreshold: 3}, false))
		out := result(t, env)
		if stop.err != nil {
			t.Fatalf("stop: %v", stop.err)
		}
		if out.Status != state.StatusInterrupted || !strings.Contains(out.Reason, "(agentloop stop) by ann") {
			t.Errorf("outcome %s %q, want interrupted by the stop", out.Status, out.Reason)
		}
		if len(s.requests) >= 5 {
			t.Errorf("%d steps: the stop did not end the run early", len(s.requests))
		}
	})
	t.Run("waiting", func(t *testing.T) {
		s := &script{results: []func(int) (evidence.Iteration, error){gate(false, 2)}}
		env := newEnv(t, s)
		refused, answer := &updateResult{}, &updateResult{}
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(UpdateSteer, "g", refused, Steer{ID: "g", Text: "use v2"})
			env.UpdateWorkflow(UpdateGuidance, "a", answer, Guidance{Abort: true})
		}, time.Hour)
		env.ExecuteWorkflow(WorkflowRun, input(budget.Limits{MaxIterations: 1, FailureThreshold: 5}, true))
		out := result(t, env)
		if out.Status != state.StatusAborted || answer.err != nil {
			t.Errorf("outcome %s %q (answer: %v), want aborted", out.Status, out.Reason, answer.err)
		}
		if refused.err == nil || !strings.Contains(refused.err.Error(), "resume build --guidance") {
			t.Errorf("guidance for a run waiting for its answer: %v, want refused with the resume command", refused.err)
		}
	})
}
