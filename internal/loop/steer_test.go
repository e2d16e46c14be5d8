package loop_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// steerEnv is a scriptEnv people steer: queue[n] is what is queued when the
// loop asks for the n-th time (0-based); a queue entry stays until Steered
// names it, unless forget is false (a crash before the queue forgot it).
type steerEnv struct {
	scriptEnv
	asks    int
	add     map[int]state.Steering // what people queue before the loop's ask n
	queue   state.Steering
	forget  bool
	steered [][]string
}

func (e *steerEnv) Steering(context.Context) (state.Steering, error) {
	if a, ok := e.add[e.asks]; ok {
		e.queue.Guidance = append(e.queue.Guidance, a.Guidance...)
		if a.Stop != nil {
			e.queue.Stop = a.Stop
		}
	}
	e.asks++
	return e.queue, nil
}

func (e *steerEnv) Steered(_ context.Context, ids []string, stopped bool) {
	e.steered = append(e.steered, ids)
	if !e.forget {
		return
	}
	e.queue.Guidance = slices.DeleteFunc(e.queue.Guidance, func(g state.Steer) bool { return slices.Contains(ids, g.ID) })
	if stopped {
		e.queue.Stop = nil
	}
}

func guideHandoffs(st *state.State) []state.Handoff {
	var out []state.Handoff
	for _, h := range st.Handoffs {
		if h.Kind == state.HandoffGuide {
			out = append(out, h)
		}
	}
	return out
}

// Guidance queued while iteration 1 runs reaches the prompts of 2 and after,
// once, with its hand-off in the history; a stop ends the run after the
// iteration that was running, interrupted.
func TestSteer(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 25, 4, 0, 0, 0, time.UTC)
	env := &steerEnv{forget: true, scriptEnv: scriptEnv{script: []func(int) (evidence.Iteration, error){agentExit(0)}},
		add: map[int]state.Steering{
			1: {Guidance: []state.Steer{{ID: "g1", Text: "use v2", At: at, By: "ann@box"}}},
			2: {Guidance: []state.Steer{{ID: "g2", Text: "keep names", At: at}}},
			3: {Stop: &state.StopRequest{At: at, By: "bob@box"}},
		}}
	st := newState()
	out, err := loop.Run(t.Context(), env, state.Spec{Limits: budget.Limits{MaxIterations: 10, FailureThreshold: 3}, Decider: engine}, st)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != state.StatusInterrupted || out.Reason != "stopped after iteration 3 (agentloop stop) by bob@box" || st.Iteration != 3 {
		t.Fatalf("got %+v after %d iterations, want interrupted after 3", out, st.Iteration)
	}
	var steer []string
	for _, r := range env.requests {
		steer = append(steer, r.Steer)
	}
	if want := []string{"", "use v2", "use v2\n\nkeep names"}; !slices.Equal(steer, want) {
		t.Errorf("prompts' guidance %q, want %q", steer, want)
	}
	hs := guideHandoffs(st)
	if len(hs) != 2 || hs[0].ID != "g1" || hs[0].Iteration != 2 || hs[0].After != 1 || hs[0].By != "ann@box" || hs[1].Iteration != 3 {
		t.Errorf("hand-offs %+v", hs)
	}
	var acked []int
	for _, ev := range env.events {
		if h, ok := ev.Data.(state.HandoffRecorded); ok && h.Kind == state.HandoffGuide {
			acked = append(acked, ev.Iteration)
		}
	}
	if !slices.Equal(acked, []int{2, 3}) {
		t.Errorf("hand-off events at iterations %v, want [2 3]", acked)
	}
	if len(env.queue.Guidance) != 0 || env.queue.Stop != nil {
		t.Errorf("queue left %+v", env.queue)
	}
}

// Guidance applied, then a crash before its queue entry was removed: the next
// session finds it in the history and does not apply it again.
func TestSteerAppliedOnce(t *testing.T) {
	t.Parallel()
	g := state.Steer{ID: "g1", Text: "use v2"}
	env := &steerEnv{scriptEnv: scriptEnv{script: []func(int) (evidence.Iteration, error){agentExit(0)}},
		add: map[int]state.Steering{1: {Guidance: []state.Steer{g}}}}
	st := newState()
	spec := state.Spec{Limits: budget.Limits{MaxIterations: 2, FailureThreshold: 3}, Decider: engine}
	if _, err := loop.Run(t.Context(), env, spec, st); err != nil {
		t.Fatal(err)
	}
	// The next session (resume with a higher limit) finds the entry still queued.
	env2 := &steerEnv{forget: true, queue: state.Steering{Guidance: []state.Steer{g}}, scriptEnv: scriptEnv{script: []func(int) (evidence.Iteration, error){agentExit(0)}}}
	spec.Limits.MaxIterations = 3
	if _, err := loop.Run(t.Context(), env2, spec, st); err != nil {
		t.Fatal(err)
	}
	if n := len(guideHandoffs(st)); n != 1 {
		t.Errorf("%d guide hand-offs, want 1", n)
	}
	if st.Steer != "use v2" || env2.requests[0].Steer != "use v2" {
		t.Errorf("guidance %q, prompt's %q: want it once", st.Steer, env2.requests[0].Steer)
	}
	if len(env2.queue.Guidance) != 0 || !slices.Equal(env2.steered[0], []string{"g1"}) {
		t.Errorf("the entry applied before was not removed: %+v", env2.steered)
	}
	for _, ev := range env2.events {
		if h, ok := ev.Data.(state.HandoffRecorded); ok && strings.Contains(h.Text, "v2") {
			t.Errorf("announced again: %+v", ev)
		}
	}
}
