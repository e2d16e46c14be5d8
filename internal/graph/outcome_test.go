package graph

import (
	"testing"

	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

func TestOutcomeOf(t *testing.T) {
	t.Parallel()
	for status, want := range map[state.Status]tasks.State{
		state.StatusSucceeded: tasks.StateSucceeded, state.StatusCompleted: tasks.StateCompleted,
		state.StatusEscalated: tasks.StateEscalated, state.StatusInterrupted: tasks.StateInterrupted,
		state.StatusAborted: tasks.StateFailed, state.StatusRunning: tasks.StateFailed,
	} {
		o := OutcomeOf(&state.State{Status: status, TotalIterations: 2}, "b")
		if o.State != want || o.Branch != "b" || o.Iterations != 2 {
			t.Errorf("outcome of a run %s: %+v, want %s", status, o, want)
		}
	}
}

func TestVerified(t *testing.T) {
	t.Parallel()
	for status, want := range map[state.Status]string{
		state.StatusSucceeded: "c2", state.StatusCompleted: "", state.StatusEscalated: "",
		state.StatusInterrupted: "", state.StatusAborted: "", state.StatusRunning: "",
	} {
		if got := Verified(&state.State{Status: status, Tree: "c2"}); got != want {
			t.Errorf("Verified of a run %s at c2 = %q, want %q", status, got, want)
		}
	}
}
