package app

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/state"
)

// A server's runs are rows; a running one that waits for an answer is in the
// phase "waiting for you" since it asked, one whose step told what it does
// (its heartbeat) is in that phase, the others have no phase.
func TestRemote(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)
	asked := now.Add(-time.Minute)
	states := []*state.State{
		{Name: "parked", Status: state.StatusRunning, Iteration: 2},
		{Name: "busy", Status: state.StatusRunning, Iteration: 1},
		{Name: "stuck", Status: state.StatusEscalated, Iteration: 3},
		{Name: "gating", Status: state.StatusRunning, Iteration: 4},
		{Name: "told", Status: state.StatusSucceeded, Iteration: 5},
	}
	lives := []state.LiveStatus{{Phase: "agent", Since: asked}, {}, {Phase: "review", Since: asked}, {Iteration: 4, Phase: "gates", Since: now.Add(-2 * time.Second)}, {Phase: "agent"}}
	needs := []decision.Waiting{
		{NeedsYou: decision.NeedsYou{Run: "parked", Kind: decision.NeedsBudget}, Since: asked, Engine: "temporal"},
		{NeedsYou: decision.NeedsYou{Run: "stuck", Kind: decision.NeedsEscalated}, Since: asked, Engine: "temporal"},
	}
	v := Remote(states, lives, needs, now)
	var got []string
	for _, r := range v.Runs {
		got = append(got, r.Cells(now)[3])
	}
	if diff := cmp.Diff([]string{"waiting for you 1m00s", "—", "waiting for you", "gates 2.0s", "—"}, got); diff != "" {
		t.Errorf("phases (-want +got):\n%s", diff)
	}
	if len(v.NeedsYou) != 2 || !v.At.Equal(now) {
		t.Errorf("view %+v: want the two records, at now", v)
	}
}
