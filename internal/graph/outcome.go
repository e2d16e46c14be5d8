package graph

import (
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// RunOver reports whether the run of a task, found in st when its graph
// resumes, is over: succeeded, completed or escalated, it is not run again
// (its work is committed and merged back, or waits for a human); interrupted
// or aborted, it continues from st.
func RunOver(st *state.State) bool {
	return st.Status.Ended() && st.Status != state.StatusInterrupted && st.Status != state.StatusAborted
}

// Verified is the checkpoint on which the loop of a task, its run ended in st,
// found its required gates passing: its last, when it succeeded; "" when it
// did not (completed, with no evidence to judge by or by a person's accept;
// or not done). A merged result of
// that very tree needs no second run of the gates ([Merger.Merge]); any other
// does, whatever the run's status says.
func Verified(st *state.State) string {
	if st.Status != state.StatusSucceeded {
		return ""
	}
	return st.Tree
}

// OutcomeOf is how a task whose run ended in st stands in its graph.
func OutcomeOf(st *state.State, branch string) tasks.Outcome {
	o := tasks.Outcome{Reason: st.Reason, Iterations: st.TotalIterations, Usage: st.Spend.Total(), Branch: branch}
	switch st.Status {
	case state.StatusSucceeded:
		o.State = tasks.StateSucceeded
	case state.StatusCompleted:
		o.State = tasks.StateCompleted
	case state.StatusEscalated:
		o.State = tasks.StateEscalated
	case state.StatusInterrupted:
		o.State = tasks.StateInterrupted
	default:
		o.State = tasks.StateFailed
	}
	return o
}
