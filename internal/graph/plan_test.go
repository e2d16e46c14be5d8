package graph

import (
	"testing"

	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/tasks"
)

func TestOutcomeOf(t *testing.T) {
	t.Parallel()
	for status, want := range map[loop.Status]tasks.State{
		loop.StatusSucceeded: tasks.StateSucceeded, loop.StatusCompleted: tasks.StateCompleted,
		loop.StatusEscalated: tasks.StateEscalated, loop.StatusInterrupted: tasks.StateInterrupted,
		loop.StatusAborted: tasks.StateFailed, loop.StatusRunning: tasks.StateFailed,
	} {
		o := OutcomeOf(&loop.State{Status: status, TotalIterations: 2}, "b")
		if o.State != want || o.Branch != "b" || o.Iterations != 2 {
			t.Errorf("outcome of a run %s: %+v, want %s", status, o, want)
		}
	}
}

func TestVerified(t *testing.T) {
	t.Parallel()
	for status, want := range map[loop.Status]string{
		loop.StatusSucceeded: "c2", loop.StatusCompleted: "", loop.StatusEscalated: "",
		loop.StatusInterrupted: "", loop.StatusAborted: "", loop.StatusRunning: "",
	} {
		if got := Verified(&loop.State{Status: status, Tree: "c2"}); got != want {
			t.Errorf("Verified of a run %s at c2 = %q, want %q", status, got, want)
		}
	}
}
