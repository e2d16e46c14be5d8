package decide

import (
	"strings"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/state"
)

// firstTryFixRate is the share of failures one feedback round fixes (Aider's
// polyglot leaderboard median): the expected gain of a second
// iteration when there is no trend yet.
const firstTryFixRate = 0.39

func specAction(a state.Action) string {
	switch a {
	case state.ActionProceed, state.ActionEscalate, state.ActionAbort:
		return string(a)
	}
	return "retry"
}

func (e *Engine) document(f *facts, ts []decision.Trigger, c choice, d state.Decision) decision.Document {
	dd := decision.Body{
		Action: specAction(c.action), TaskID: f.in.Spec.Name, Iteration: f.ev.N, Strategy: c.strategy,
		Rule: c.rule, Triggers: ts, Rollback: d.Rollback,
	}
	switch c.action {
	case state.ActionProceed, state.ActionAbort:
		dd.Message = c.reason
	case state.ActionEscalate:
		dd.Reason = c.reason
	default:
		dd.Feedback = &decision.Feedback{Summary: c.reason, ActionableItems: items(f, ts), Priority: priority(ts)}
		n := d.Next
		dd.Next = &decision.Next{Iteration: f.ev.N + 1, Attempt: n.Attempt, Lessons: n.Lessons, Focus: n.Focus, Expand: n.Expand, Agent: n.Agent}
		if n.Timeout > 0 {
			dd.Next.Timeout = n.Timeout.Duration().String()
		}
	}
	dd.Budget = &decision.Budget{Iterations: f.in.Budget.Spent.Iterations, MaxIterations: f.in.Spec.Limits.MaxIterations, Limits: budgetLines(f.in)}
	dd.Assessment = assess(f, ts, c)
	return decision.Document{Decision: dd}
}

// items are the actionable items: failing checks first, then reviewer blockers
// and majors, at most 7.
func items(f *facts, ts []decision.Trigger) []string {
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
		if t.ID == decision.TriggerTestTampering && t.Severity >= 0.5 || t.ID == decision.TriggerScopeCreep {
			out = append(out, clip(t.ID+": "+t.Evidence, 160))
		}
	}
	if len(out) > 7 {
		out = out[:7]
	}
	return out
}

func priority(ts []decision.Trigger) string {
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

func assess(f *facts, ts []decision.Trigger, c choice) *decision.Assessment {
	a := &decision.Assessment{Trend: "first"}
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
	case state.ActionProceed:
		a.Recommendation = "accept"
	case state.ActionEscalate:
		a.Recommendation = "escalate"
	case state.ActionAbort:
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
