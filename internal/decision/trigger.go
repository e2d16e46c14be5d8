package decision

// Trigger is one reason, found in the evidence, to change course.
type Trigger struct {
	ID       string  `json:"id" yaml:"id"`             // one of the Trigger* names
	Severity float64 `json:"severity" yaml:"severity"` // 0–1
	Fixable  bool    `json:"fixable" yaml:"fixable"`
	Evidence string  `json:"evidence,omitempty" yaml:"evidence,omitempty"`
}

// The names of triggers: the one set of them. A trigger's name is also the
// escalation class of an escalation it causes ([EscalationReport.Class]),
// the name of the reviewer's tag that raises it (security, scope_creep,
// architecture, requirements_conflict, test_tampering), and of the class a
// procedure's escalation.on lists.
const (
	// The specification's eight.
	TriggerValidationFailure = "validation_failure"
	TriggerLowConfidence     = "low_confidence"
	TriggerIncompleteOutput  = "incomplete_output"
	TriggerExplicitFeedback  = "explicit_feedback"
	TriggerHallucination     = "hallucination_detected"
	TriggerRequirementUnmet  = "requirement_unmet"
	TriggerQualityThreshold  = "quality_threshold"
	TriggerUserRejection     = "user_rejection"

	// agentloop's own.
	TriggerStuck         = "stuck"
	TriggerOscillation   = "oscillation"
	TriggerChurn         = "churn"
	TriggerRegression    = "regression"
	TriggerPlateau       = "plateau"
	TriggerTestTampering = "test_tampering"
	TriggerSecurity      = "security"
	TriggerScopeCreep    = "scope_creep"
	TriggerArchitecture  = "architecture"
	TriggerConflict      = "requirements_conflict"
	TriggerBudgetSoft    = "budget_soft"
	TriggerBudgetAfford  = "budget_cannot_afford"
	TriggerBudgetHard    = "budget_hard"
	TriggerMaxIterations = "max_iterations"
	TriggerTransient     = "transient"
	TriggerRateLimit     = "rate_limit"
	TriggerMovedBranch   = "moved_branch"
)

// Escalation classes that are no trigger's name: an escalation on the
// reviewer's verdict itself.
const (
	ClassNoVerdict = "no_verdict" // the gates pass and the reviewer gave no readable verdict
	ClassReview    = "review"     // the reviewer and the implementer do not converge
	// ClassThreshold: the consecutive-failure threshold stopped work that
	// changed code; the person gets the pattern and a question, not a bare
	// exit code.
	ClassThreshold = "failure_threshold"
)

// The reviewer's tags that are no trigger's name (the others are the names of
// the triggers they raise).
const (
	TagMissingContext = "missing_context" // the agent worked without something it needed: hallucination_detected, expand
	TagNeedsHuman     = "needs_human"     // a decision only a person can make
)
