package decide

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/loop"
	"go.yaml.in/yaml/v3"
)

// DecisionDoc is the `decision` document of DESIGN §6. `agentloop decide` writes
// its specification fields; the loop writes it as each iteration's decision.yaml
// with the extensions (triggers, strategy, budget, assessment) filled.
type DecisionDoc struct {
	Decision DocDecision `yaml:"decision"`
}

// DocDecision is the body of a [DecisionDoc]. Action is the specification's word
// (proceed | retry | escalate, and abort for a budget); Strategy says which kind of
// retry (retry, refine, expand, simplify).
type DocDecision struct {
	Action     string         `yaml:"action"`
	TaskID     string         `yaml:"task_id,omitempty"`
	Iteration  int            `yaml:"iteration,omitempty"`
	Reason     string         `yaml:"reason,omitempty"`
	Message    string         `yaml:"message,omitempty"`
	Feedback   *DocFeedback   `yaml:"feedback,omitempty"`
	Context    *Context       `yaml:"context,omitempty"`
	Question   string         `yaml:"question,omitempty"`
	Options    []string       `yaml:"options,omitempty"`
	Strategy   string         `yaml:"strategy,omitempty"`
	Rule       string         `yaml:"rule,omitempty"`
	Triggers   []loop.Trigger `yaml:"triggers,omitempty"`
	Next       *DocNext       `yaml:"next,omitempty"`
	Rollback   string         `yaml:"rollback,omitempty"`
	Budget     *DocBudget     `yaml:"budget,omitempty"`
	Assessment *Assessment    `yaml:"assessment,omitempty"`
}

// DocFeedback is the synthesized feedback of a retry.
type DocFeedback struct {
	Summary         string   `yaml:"summary"`
	ActionableItems []string `yaml:"actionable_items"`
	Priority        string   `yaml:"priority"` // high | medium | low
}

// Context is what an escalation tells about the attempts.
type Context struct {
	AttemptsSummary []string `yaml:"attempts_summary"`
	PatternDetected string   `yaml:"pattern_detected,omitempty"`
}

// DocNext is what the next iteration is asked to do.
type DocNext struct {
	Attempt int      `yaml:"attempt,omitempty"`
	Lessons []string `yaml:"lessons,omitempty"`
	Focus   string   `yaml:"focus,omitempty"`
	Expand  []string `yaml:"expand,omitempty"`
	Agent   string   `yaml:"agent,omitempty"`
	Timeout string   `yaml:"timeout,omitempty"`
}

// DocBudget is the budget picture after the iteration.
type DocBudget struct {
	Iterations    int          `yaml:"iterations"`
	MaxIterations int          `yaml:"max_iterations,omitempty"`
	Limits        []budgetLine `yaml:"limits,omitempty"`
}

// Assessment is the improvement assessment of the specification's detection report.
type Assessment struct {
	QualityTrend    []float64 `yaml:"quality_trend"`
	Trend           string    `yaml:"trend"` // improving | flat | declining | first
	Plateau         bool      `yaml:"plateau"`
	Variance        float64   `yaml:"variance_last_3"`
	FixabilityRatio float64   `yaml:"fixability_ratio"`
	ExpectedGain    float64   `yaml:"expected_gain"`
	Recommendation  string    `yaml:"recommendation"` // iterate | accept | escalate | abort
}

// YAML renders the document.
func (d DecisionDoc) YAML() ([]byte, error) { return marshal(d) }

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

// firstTryFixRate is the share of failures one feedback round fixes (Aider's
// polyglot leaderboard median, loop-control §1): the expected gain of a second
// iteration when there is no trend yet.
const firstTryFixRate = 0.39

func specAction(a loop.Action) string {
	switch a {
	case loop.ActionProceed, loop.ActionEscalate, loop.ActionAbort:
		return string(a)
	}
	return "retry"
}

func (e *Engine) document(f *facts, ts []loop.Trigger, c choice, d loop.Decision) DecisionDoc {
	dd := DocDecision{
		Action: specAction(c.action), TaskID: f.in.Spec.Name, Iteration: f.ev.N, Strategy: c.strategy,
		Rule: c.rule, Triggers: ts, Rollback: d.Rollback,
	}
	switch c.action {
	case loop.ActionProceed, loop.ActionAbort:
		dd.Message = c.reason
	case loop.ActionEscalate:
		dd.Reason = c.reason
	default:
		dd.Iteration = f.ev.N + 1
		dd.Feedback = &DocFeedback{Summary: c.reason, ActionableItems: items(f, ts), Priority: priority(ts)}
		n := d.Next
		dd.Next = &DocNext{Attempt: n.Attempt, Lessons: n.Lessons, Focus: n.Focus, Expand: n.Expand, Agent: n.Agent}
		if n.Timeout > 0 {
			dd.Next.Timeout = n.Timeout.Duration().String()
		}
	}
	b := f.in.Budget
	dd.Budget = &DocBudget{Iterations: b.Iterations, MaxIterations: b.MaxIterations, Limits: budgetLines(f.in)}
	dd.Assessment = assess(f, ts, c)
	return DecisionDoc{Decision: dd}
}

// items are the actionable items: failing checks first, then reviewer blockers
// and majors, at most 7.
func items(f *facts, ts []loop.Trigger) []string {
	var out []string
	for _, g := range f.ev.Gates {
		for _, fd := range g.Findings {
			if fd.Flaky {
				continue
			}
			where := fd.ID
			if where == "" {
				where = fd.File
			}
			out = append(out, clip(string(fd.Kind)+" failed: "+where+": "+firstLine(fd.Message), 160))
		}
	}
	if r := f.ev.Review; r != nil && !r.Approved() {
		for _, fd := range r.Findings {
			if rank(fd.Severity) <= 1 {
				out = append(out, clip("review ("+orText(fd.Severity, "major")+"): "+fd.Message, 160))
			}
		}
	}
	for _, t := range ts {
		if t.ID == TTestTampering && t.Severity >= 0.5 || t.ID == TScopeCreep {
			out = append(out, clip(t.ID+": "+t.Evidence, 160))
		}
	}
	if len(out) > 7 {
		out = out[:7]
	}
	return out
}

func priority(ts []loop.Trigger) string {
	top := 0.0
	for _, t := range ts {
		top = max(top, t.Severity)
	}
	switch {
	case top >= 0.7:
		return "high"
	case top >= 0.4:
		return "medium"
	}
	return "low"
}

func assess(f *facts, ts []loop.Trigger, c choice) *Assessment {
	a := &Assessment{Trend: "first"}
	for _, p := range f.all {
		a.QualityTrend = append(a.QualityTrend, p.Quality)
	}
	pi := plateau(a.QualityTrend, f.p)
	a.Plateau = pi.Stalled
	a.Variance = round3(pi.Variance*10) / 10
	if n := len(a.QualityTrend); n >= 2 {
		d := a.QualityTrend[n-1] - a.QualityTrend[n-2]
		switch {
		case d >= f.p.Epsilon:
			a.Trend = "improving"
		case d <= -f.p.Epsilon:
			a.Trend = "declining"
		default:
			a.Trend = "flat"
		}
	}
	var fix, all float64
	for _, t := range ts {
		all += t.Severity
		if t.Fixable {
			fix += t.Severity
		}
	}
	a.FixabilityRatio = 1
	if all > 0 {
		a.FixabilityRatio = round3(fix / all)
	}
	headroom := 1 - f.cur.Quality
	gain := headroom * firstTryFixRate
	if len(a.QualityTrend) >= 3 {
		gain = min(headroom, max(0, pi.Slope))
	}
	a.ExpectedGain = round3(gain * a.FixabilityRatio)
	switch c.action {
	case loop.ActionProceed:
		a.Recommendation = "accept"
	case loop.ActionEscalate:
		a.Recommendation = "escalate"
	case loop.ActionAbort:
		a.Recommendation = "abort"
	default:
		a.Recommendation = "iterate"
	}
	return a
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
