package tasks

import (
	"slices"
	"sort"

	"github.com/agentloop/agentloop/internal/evidence"
)

// State is where a task stands in a graph run.
type State string

// Task states. Succeeded and Completed count as done: dependents may start.
const (
	StatePending     State = "pending"     // not started (yet, or the run stopped first)
	StateSucceeded   State = "succeeded"   // its loop succeeded
	StateCompleted   State = "completed"   // its loop ran to its limit without outside evidence
	StateFailed      State = "failed"      // its loop aborted, or Run returned an error
	StateEscalated   State = "escalated"   // its loop waits for a human (or its merge conflicted)
	StateInterrupted State = "interrupted" // cancelled while running
	StateBlocked     State = "blocked"     // a dependency did not succeed
	StateSkipped     State = "skipped"     // not started: the global budget is spent
)

// Done reports whether the state lets dependents start.
func (s State) Done() bool { return s == StateSucceeded || s == StateCompleted }

// Outcome is how one task ended.
type Outcome struct {
	State      State          `json:"state"`
	Reason     string         `json:"reason,omitempty"`
	Iterations int            `json:"iterations,omitempty"`
	Usage      evidence.Usage `json:"usage"`
	Branch     string         `json:"branch,omitempty"`
	// Seq is the 1-based completion order of a done task, for merge-back; 0 otherwise.
	Seq int `json:"seq,omitempty"`
	// Conflicts are the files a merge-back conflicted on.
	Conflicts []string `json:"conflicts,omitempty"`
	// Unmerged says why a task whose loop ended done was not merged back
	// (its state is then escalated); "" when it merged or was not tried.
	Unmerged MergeIssue `json:"unmerged,omitempty"`
}

// MergeIssue is why a done task's work was not merged back.
type MergeIssue string

// Why a done task's work was not merged back.
const (
	MergeConflict MergeIssue = "conflict" // its branch conflicts with the work merged before it
	MergeGates    MergeIssue = "gates"    // its required gates fail on the merged result
	MergeRefused  MergeIssue = "refused"  // the repository's work tree has changes a merge would touch
)

// CompletionOrder returns the ids of the done tasks in the order they finished
// (by [Outcome.Seq]), the order their branches merge back in.
func CompletionOrder(out map[string]Outcome) []string {
	var ids []string
	for id, o := range out {
		if o.State.Done() && o.Seq > 0 {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		if out[ids[i]].Seq != out[ids[j]].Seq {
			return out[ids[i]].Seq < out[ids[j]].Seq
		}
		return ids[i] < ids[j]
	})
	return ids
}

// MergeOrder returns the done tasks not among merged (merged back by an
// earlier run of the graph), in the order they merge back.
func MergeOrder(out map[string]Outcome, merged []string) []string {
	return slices.DeleteFunc(CompletionOrder(out), func(id string) bool { return slices.Contains(merged, id) })
}
