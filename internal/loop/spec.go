package loop

import "github.com/agentloop/agentloop/internal/budget"

// Spec is what a run was asked to do: its limits and policy, fixed for a session.
type Spec struct {
	Name        string // run name (the procedure's, or the task's)
	Procedure   string
	Task        string // what the run is asked to do, for reports and the reviewer
	Limits      budget.Limits
	HasGates    bool
	HasReviewer bool
	Baseline    bool // run the gates once on the untouched tree first
	// Shared: the run's spend is governed with the user's other loops (a
	// shared ledger): each iteration is reserved first ([StepReserve]).
	Shared  bool
	Decider Decider
}
