package loop

import "time"

// Spec is what a run was asked to do: its limits and policy, fixed for a session.
type Spec struct {
	Name             string // run name (the procedure's, or the task's)
	Procedure        string
	Task             string // what the run is asked to do, for reports and the reviewer
	MaxIterations    int    // 0: unlimited
	FailureThreshold int    // consecutive failed iterations before aborting
	MaxTokens        int64
	MaxCostUSD       float64
	MaxDuration      time.Duration
	IterationTimeout time.Duration
	HasGates         bool
	HasReviewer      bool
	Baseline         bool // run the gates once on the untouched tree first
	Decider          Decider
}
