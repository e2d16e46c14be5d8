package decision

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Document is the `decision` document. `agentloop decide` writes its
// specification fields; the loop writes it as each iteration's decision.yaml with
// the extensions (triggers, strategy, budget, assessment) filled.
type Document struct {
	Decision Body `json:"decision" yaml:"decision"`
}

// Body is the body of a [Document]. Action is the specification's word (proceed |
// retry | escalate, and abort for a budget); Strategy says which kind of retry
// (retry, refine, expand, simplify).
//
// Iteration is the iteration the document is about in a loop's decision.yaml (the
// next one is in Next); in the answer to an `iteration_check` it is, as the
// specification has it, the iteration a retry runs as.
type Body struct {
	Action     string      `json:"action" yaml:"action"`
	TaskID     string      `json:"task_id,omitempty" yaml:"task_id,omitempty"`
	Iteration  int         `json:"iteration,omitempty" yaml:"iteration,omitempty"`
	Reason     string      `json:"reason,omitempty" yaml:"reason,omitempty"`
	Message    string      `json:"message,omitempty" yaml:"message,omitempty"`
	Feedback   *Feedback   `json:"feedback,omitempty" yaml:"feedback,omitempty"`
	Context    *Context    `json:"context,omitempty" yaml:"context,omitempty"`
	Question   string      `json:"question,omitempty" yaml:"question,omitempty"`
	Options    []string    `json:"options,omitempty" yaml:"options,omitempty"`
	Strategy   string      `json:"strategy,omitempty" yaml:"strategy,omitempty"`
	Rule       string      `json:"rule,omitempty" yaml:"rule,omitempty"`
	Triggers   []Trigger   `json:"triggers,omitempty" yaml:"triggers,omitempty"`
	Next       *Next       `json:"next,omitempty" yaml:"next,omitempty"`
	Rollback   string      `json:"rollback,omitempty" yaml:"rollback,omitempty"`
	Budget     *Budget     `json:"budget,omitempty" yaml:"budget,omitempty"`
	Assessment *Assessment `json:"assessment,omitempty" yaml:"assessment,omitempty"`
}

// Feedback is the synthesized feedback of a retry.
type Feedback struct {
	Summary         string   `json:"summary" yaml:"summary"`
	ActionableItems []string `json:"actionable_items" yaml:"actionable_items"`
	Priority        string   `json:"priority" yaml:"priority"` // high | medium | low
}

// Context is what an escalation tells about the attempts.
type Context struct {
	AttemptsSummary []string `json:"attempts_summary" yaml:"attempts_summary"`
	PatternDetected string   `json:"pattern_detected,omitempty" yaml:"pattern_detected,omitempty"`
}

// Next is what the next iteration is asked to do.
type Next struct {
	Iteration int      `json:"iteration,omitempty" yaml:"iteration,omitempty"`
	Attempt   int      `json:"attempt,omitempty" yaml:"attempt,omitempty"`
	Lessons   []string `json:"lessons,omitempty" yaml:"lessons,omitempty"`
	Focus     string   `json:"focus,omitempty" yaml:"focus,omitempty"`
	Expand    []string `json:"expand,omitempty" yaml:"expand,omitempty"`
	Agent     string   `json:"agent,omitempty" yaml:"agent,omitempty"`
	Timeout   string   `json:"timeout,omitempty" yaml:"timeout,omitempty"`
}

// Budget is the budget picture after the iteration.
type Budget struct {
	Iterations    int          `json:"iterations" yaml:"iterations"`
	MaxIterations int          `json:"max_iterations,omitempty" yaml:"max_iterations,omitempty"`
	Limits        []BudgetLine `json:"limits,omitempty" yaml:"limits,omitempty"`
}

// BudgetLine is one limited budget's state after the iteration.
type BudgetLine struct {
	Name      string  `json:"name" yaml:"name"`
	Spent     float64 `json:"spent" yaml:"spent"`
	Limit     float64 `json:"limit" yaml:"limit"`
	Remaining float64 `json:"remaining" yaml:"remaining"`
	PerIter   float64 `json:"mean_per_iteration" yaml:"mean_per_iteration"`
	State     string  `json:"state" yaml:"state"` // ok | soft | cannot_afford | exhausted
}

// Assessment is the improvement assessment of the specification's detection report.
type Assessment struct {
	QualityTrend    []float64 `json:"quality_trend" yaml:"quality_trend"`
	Trend           string    `json:"trend" yaml:"trend"` // improving | flat | declining | first
	Plateau         bool      `json:"plateau" yaml:"plateau"`
	Variance        float64   `json:"variance_last_3" yaml:"variance_last_3"`
	FixabilityRatio float64   `json:"fixability_ratio" yaml:"fixability_ratio"`
	ExpectedGain    float64   `json:"expected_gain" yaml:"expected_gain"`
	Recommendation  string    `json:"recommendation" yaml:"recommendation"` // iterate | accept | escalate | abort
}

// YAML renders the document.
func (d Document) YAML() ([]byte, error) { return marshal(d) }

// marshal renders YAML with two-space indentation, as the specification shows it.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("marshal yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("marshal yaml: %w", err)
	}
	return b.Bytes(), nil
}
