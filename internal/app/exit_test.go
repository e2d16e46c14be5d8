package app

import (
	"fmt"
	"testing"

	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

func TestStatusExit(t *testing.T) {
	t.Parallel()
	for s, want := range map[state.Status]int{
		state.StatusSucceeded: ExitOK, state.StatusCompleted: ExitOK, state.StatusAborted: ExitAborted,
		state.StatusEscalated: ExitEscalated, state.StatusInterrupted: ExitInterrupted, state.StatusRunning: ExitFailure,
	} {
		if got := StatusExit(s); got != want {
			t.Errorf("StatusExit(%s) = %d, want %d", s, got, want)
		}
	}
}

func TestGraphExit(t *testing.T) {
	t.Parallel()
	// Each case: the outcomes of tasks 0, 1, …; the merged ones are named.
	o := func(states ...tasks.State) map[string]tasks.Outcome {
		m := map[string]tasks.Outcome{}
		for i, s := range states {
			m[fmt.Sprint(i)] = tasks.Outcome{State: s}
		}
		return m
	}
	refused := o(tasks.StateSucceeded, tasks.StateEscalated)
	refused["1"] = tasks.Outcome{State: tasks.StateEscalated, Unmerged: tasks.MergeRefused}
	for _, tt := range []struct {
		name   string
		out    map[string]tasks.Outcome
		merged []string
		budget bool
		want   int
	}{
		{"every task merged", o(tasks.StateSucceeded, tasks.StateCompleted), []string{"0", "1"}, false, ExitOK},
		{"a done task not merged", o(tasks.StateSucceeded, tasks.StateCompleted), []string{"0"}, false, ExitFailure},
		{"a failed task", o(tasks.StateSucceeded, tasks.StateFailed), []string{"0"}, false, ExitAborted},
		{"an escalated task", o(tasks.StateFailed, tasks.StateEscalated), nil, false, ExitEscalated},
		{"a refused merge", refused, []string{"0"}, false, ExitEscalated},
		{"a blocked task", o(tasks.StateSucceeded, tasks.StateBlocked), []string{"0"}, false, ExitEscalated},
		{"a task never started", o(tasks.StateSucceeded, tasks.StatePending), []string{"0"}, false, ExitAborted},
		{"the budget spent", o(tasks.StateSucceeded), []string{"0"}, true, ExitAborted},
	} {
		var ts []tasks.Task
		for i := range len(tt.out) {
			ts = append(ts, tasks.Task{ID: fmt.Sprint(i)})
		}
		unfinished := graph.ListUnfinished("g", ts, tt.out, tt.merged, graph.Commands{TaskFile: "tasks.yaml"})
		if got := GraphExit(GraphResult{Unfinished: unfinished, BudgetExhausted: tt.budget}); got != tt.want {
			t.Errorf("%s: GraphExit(%v, budget %v) = %d, want %d", tt.name, unfinished, tt.budget, got, tt.want)
		}
	}
}
