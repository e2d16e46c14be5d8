package loop

import (
	"time"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
)

// Action is what the loop does after an iteration.
type Action string

// Actions. Retry, refine, expand and simplify all continue the loop; they differ in
// what the next iteration is given.
const (
	ActionProceed  Action = "proceed"  // done: required gates green, reviewer approved
	ActionRetry    Action = "retry"    // same prompt again (transient failure)
	ActionRefine   Action = "refine"   // feedback of what changed
	ActionExpand   Action = "expand"   // more context, longer timeout
	ActionSimplify Action = "simplify" // roll back to best, fresh attempt with lessons, narrower focus
	ActionEscalate Action = "escalate" // stop and ask a human
	ActionAbort    Action = "abort"    // stop: budget or failure threshold
	ActionContinue Action = "continue" // plain loop without outside evidence: next iteration
)

// Continues reports whether the loop goes on after this action.
func (a Action) Continues() bool {
	switch a {
	case ActionRetry, ActionRefine, ActionExpand, ActionSimplify, ActionContinue:
		return true
	}
	return false
}

// Trigger is one reason, found in the evidence, to change course. The decision
// documents name triggers too, so the type is theirs.
type Trigger = decision.Trigger

// BudgetStatus is the budget picture the loop hands the decider.
type BudgetStatus struct {
	Spent         evidence.Usage `json:"spent"`
	Wall          time.Duration  `json:"wall"`
	Iterations    int            `json:"iterations"`
	MaxIterations int            `json:"max_iterations"` // 0: unlimited
	MaxTokens     int64          `json:"max_tokens,omitempty"`
	MaxCostUSD    float64        `json:"max_cost_usd,omitempty"`
	MaxDuration   time.Duration  `json:"max_duration,omitempty"`
}

// DecideInput is what a [Decider] sees after an iteration. State holds the history
// up to the previous iteration; Evidence is the iteration just finished.
type DecideInput struct {
	State    *State
	Spec     *Spec
	Evidence evidence.Iteration
	Budget   BudgetStatus
	// GateFeedback is the gates' rendered feedback for this iteration (capped),
	// which the decider folds into the next prompt's feedback.
	GateFeedback string
}

// Decision is a decider's verdict on one iteration.
type Decision struct {
	Action    Action    `json:"action"`
	Succeeded bool      `json:"succeeded"` // the iteration counts as a success (resets the failure count)
	Strategy  string    `json:"strategy,omitempty"`
	Triggers  []Trigger `json:"triggers,omitempty"`
	Quality   float64   `json:"quality"`
	Message   string    `json:"message,omitempty"`  // one line for people
	Feedback  string    `json:"feedback,omitempty"` // for the next prompt
	Next      Next      `json:"next"`
	// Failing are the iteration's failure keys, sorted; Fingerprint hashes them.
	Failing     []string `json:"failing,omitempty"`
	Fingerprint string   `json:"fingerprint,omitempty"`
	// Rollback names a checkpoint to restore before the next iteration.
	Rollback string `json:"rollback,omitempty"`
	// Best, when set, becomes the run's best checkpoint.
	Best *Checkpoint `json:"best,omitempty"`
	// Escalation is set with ActionEscalate.
	Escalation *Escalation `json:"escalation,omitempty"`
	// Document is the full decision document, kept as the iteration's
	// decision.yaml; nil when the decider writes none.
	Document *decision.Document `json:"-"`
}

// Decider turns an iteration's evidence into a decision. It must be pure: no I/O,
// no clock, no randomness.
type Decider interface {
	Decide(in DecideInput) Decision
}
