package state

import "github.com/agentloop/agentloop/internal/budget"

// Spec is what a run was asked to do: its limits and policy, fixed for a session.
type Spec struct {
	Name      string // run name (the procedure's, or the task's)
	Procedure string
	Task      string // what the run is asked to do, for reports and the reviewer
	// Told is the task as the run was told it: the text of its context
	// (--context, a graph task's text), "" when it was told nothing beyond
	// its procedure. It decides which failures are the run's.
	Told        string
	Limits      budget.Limits
	HasGates    bool
	HasReviewer bool
	Baseline    bool // run the gates once on the untouched tree first
	// Shared: the run's spend is governed with the user's other loops (a
	// shared ledger): each iteration is reserved first ([StepReserve]).
	Shared bool
	// NoCheckpoints: the engine keeps no checkpoints of the work tree (it is
	// not a git work tree, or git.checkpoint is off), so nothing is rolled
	// back, and a fresh attempt, a resume or an accept starts from the work
	// tree as it is, not from the best checkpoint.
	NoCheckpoints bool
	Decider       Decider
}
