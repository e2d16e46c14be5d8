package state

import (
	"github.com/agentloop/agentloop/internal/budget"
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
	ActionComplete Action = "complete" // stop: a loop without outside evidence ran its course (limit or completion marker)
)

// Continues reports whether the loop goes on after this action.
func (a Action) Continues() bool {
	switch a {
	case ActionRetry, ActionRefine, ActionExpand, ActionSimplify, ActionContinue:
		return true
	}
	return false
}

// PreflightInput is what a [Decider] sees before an iteration starts: the state
// so far and what the run has spent, over every session.
type PreflightInput struct {
	State  *State
	Spec   *Spec
	Budget budget.Status
}

// Preflight is a decider's verdict before an iteration: whether it may start
// and, when it may, what the run has left to spend on it.
type Preflight struct {
	// Action is ActionContinue to start the iteration; ActionComplete,
	// ActionEscalate or ActionAbort end the session (escalate asks a human).
	Action  Action `json:"action"`
	Message string `json:"message,omitempty"` // why it stops, one line for people
	// Budgets are the run's limits that stop it (ActionAbort): crossed, or
	// too close to afford another iteration.
	Budgets []budget.Resource `json:"budgets,omitempty"`
	// Warn are the limits past their warning mark, Warning says so in one line;
	// the loop shows it when the set changes.
	Warn    []budget.Resource `json:"warn,omitempty"`
	Warning string            `json:"warning,omitempty"`
	// Remaining is what the run has left: the agent is ended when its live usage
	// crosses it.
	Remaining budget.Remaining `json:"remaining"`
	// Reserve is what the next iteration is predicted to cost, for a spend
	// shared with other loops to hold before it starts.
	Reserve budget.Cost `json:"reserve"`
}

// DecideInput is what a [Decider] sees after an iteration. State holds the history
// up to the previous iteration; Evidence is the iteration just finished; Budget
// is the run's spend with that iteration included.
type DecideInput struct {
	State    *State
	Spec     *Spec
	Evidence evidence.Iteration
	Budget   budget.Status
}

// Decision is a decider's verdict on one iteration.
type Decision struct {
	Action    Action             `json:"action"`
	Succeeded bool               `json:"succeeded"` // the iteration counts as a success (resets the failure count)
	Strategy  string             `json:"strategy,omitempty"`
	Triggers  []decision.Trigger `json:"triggers,omitempty"`
	Quality   float64            `json:"quality"`
	Message   string             `json:"message,omitempty"`  // one line for people
	Feedback  string             `json:"feedback,omitempty"` // for the next prompt
	// Budgets are the run's limits that stop it, with ActionAbort on a
	// budget: crossed, or too close to afford another iteration.
	Budgets []budget.Resource `json:"budgets,omitempty"`
	Next    Next              `json:"next"`
	// Failing are the iteration's failure keys, sorted; Fingerprint hashes them.
	Failing     []string `json:"failing,omitempty"`
	Fingerprint string   `json:"fingerprint,omitempty"`
	// OutsideTask are the keys of failures that were there before the run,
	// outside the task (not named by it, not touched, their messages the
	// same): reported apart, not the run's, not in Failing.
	OutsideTask []string `json:"outside_task,omitempty"`
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

// Decider is the one authority on whether and why a run goes on: before each
// iteration it says whether the iteration may start (iteration limit, budgets),
// after it what comes next (the failure threshold, escalation, the strategy).
// The loop obeys. It also writes the feedback each prompt carries. It must be
// pure: no I/O, no clock, no randomness.
type Decider interface {
	Preflight(in PreflightInput) Preflight
	Decide(in DecideInput) Decision
	// Brief is the first iteration's feedback: what the baseline gates found
	// before the agent changed anything ("" when nothing fails).
	Brief(baseline []evidence.GateResult) string
}
