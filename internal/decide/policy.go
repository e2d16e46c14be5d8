package decide

import (
	"time"

	"github.com/agentloop/agentloop/internal/decision"
)

// Policy holds the thresholds the decision engine applies. The defaults are those of
// published loop runners' measurements; a procedure's config may override any of them.
type Policy struct {
	MaxRefinePerAttempt int      `yaml:"max_refine_per_attempt"` // refines in a row before a fresh attempt
	MaxAttempts         int      `yaml:"max_attempts"`           // fresh attempts (simplify starts one)
	MaxSimplify         int      `yaml:"max_simplify"`           // simplifications on a plateau (or after refines) without a new best before escalating; a stuck run escalates after one
	MaxExpand           int      `yaml:"max_expand"`             // context expansions per run segment
	MaxTransient        int      `yaml:"max_transient"`          // same-prompt retries in a row on transient failures
	AcceptScore         float64  `yaml:"accept_score"`           // reviewer score (0–10) needed to proceed
	Patience            int      `yaml:"patience"`               // iterations without improvement before plateau
	Epsilon             float64  `yaml:"epsilon"`                // smallest quality gain that counts as improvement
	StuckRepeats        int      `yaml:"stuck_repeats"`          // same failure fingerprint this many times in a row, the baseline counted
	MaxReviewRounds     int      `yaml:"max_review_rounds"`      // reviewer rejections before escalating
	EscalateOn          []string `yaml:"escalate_on"`            // classes that escalate at once
	AutoRetryOnTestFail bool     `yaml:"auto_retry_on_test_fail"`
	// AutoRetryOnReviewReject retries when the reviewer asks for changes; false escalates.
	AutoRetryOnReviewReject bool `yaml:"auto_retry_on_review_reject"`
	FeedbackMaxLength       int  `yaml:"feedback_max_length"` // per feedback part, in bytes
	// GateFeedbackMaxLength caps one gate's part of the gates' feedback, by gate
	// name, in runes (a gate's max_feedback); the others share FeedbackMaxLength.
	GateFeedbackMaxLength map[string]int `yaml:"gate_feedback_max_length,omitempty"`
	Fallback              []string       `yaml:"fallback"`         // agents to switch to on a second simplify
	DiffLinesLimit        int            `yaml:"diff_lines_limit"` // added+deleted lines that count as scope creep
	// AllowTestEdits accepts edits to test files (a task that writes tests); skips
	// added and assertions removed still count as tampering.
	AllowTestEdits bool `yaml:"allow_test_edits"`
	// MaxIterations is the limit the `decide` document uses when the check omits it.
	MaxIterations int `yaml:"max_iterations"`
}

// DefaultPolicy returns the evidence-backed defaults.
func DefaultPolicy() Policy {
	return Policy{
		MaxRefinePerAttempt:     3,
		MaxAttempts:             3,
		MaxSimplify:             2,
		MaxExpand:               2,
		MaxTransient:            2,
		AcceptScore:             7,
		Patience:                2,
		Epsilon:                 0.02,
		StuckRepeats:            2,
		MaxReviewRounds:         3,
		EscalateOn:              []string{decision.TriggerSecurity, decision.TriggerScopeCreep, decision.TriggerArchitecture, decision.TriggerConflict},
		AutoRetryOnTestFail:     true,
		AutoRetryOnReviewReject: true,
		FeedbackMaxLength:       500,
		DiffLinesLimit:          1000,
		MaxIterations:           3,
	}
}

// escalates reports whether class is one the policy escalates at once.
func (p Policy) escalates(class string) bool {
	for _, c := range p.EscalateOn {
		if c == class || (class == decision.TriggerConflict && c == "conflict") {
			return true
		}
	}
	return false
}

// expandTimeout is the raised iteration timeout an expand asks for.
func expandTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d + d/2
}
