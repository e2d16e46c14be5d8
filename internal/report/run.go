package report

import (
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// Run is everything a report shows about one run.
type Run struct {
	State  *state.State
	Events []state.Event
	// EventsAll is how many events the run's log holds when Events are its
	// last ones only ([LoadRunDirLast]); 0 when Events are all of them.
	EventsAll  int
	Escalation string // the last escalation report in Markdown; empty when the run did not escalate
	// Escalations are the escalation reports of the run's segments, in
	// order; the last is Escalation.
	Escalations []state.EscalationFile
	Tasks       []TaskRow // a task graph's tasks: the report is then the graph's
	// Attempts are what the folders of some attempts keep beyond their
	// records, by attempt number: the last attempt's, the last one the
	// reviewer judged, and those whose decision found test tampering. None
	// when the report is made from elsewhere than the run folder (a run on
	// Temporal).
	Attempts map[int]Attempt
}

// TaskRow is one task of a task graph as a report shows it.
type TaskRow struct {
	ID         string         `json:"id"`
	Title      string         `json:"title,omitempty"`
	State      string         `json:"state"` // pending, running, succeeded, completed, failed, escalated, aborted, blocked, skipped
	DependsOn  []string       `json:"depends_on,omitempty"`
	Iterations int            `json:"iterations"`
	Usage      evidence.Usage `json:"usage"`
	Reason     string         `json:"reason,omitempty"`
	// Run is the task's own run (state, events, escalation) when it has one:
	// the graph's HTML page shows it in a section of its own.
	Run *Run `json:"-"`
}

// state returns the run's state, or an empty one so renderers never dereference nil.
func (r Run) state() *state.State {
	if r.State == nil {
		return &state.State{}
	}
	return r.State
}

// tokensText renders a token figure, "unknown" when the CLI did not report it.
func tokensText(u evidence.Usage) string {
	if !u.TokensKnown {
		return "unknown"
	}
	return budget.Thousands(u.TotalTokens())
}

// costText renders a cost, "unknown" when not known, prefixed "~" when estimated.
func costText(u evidence.Usage) string {
	if !u.CostKnown {
		return "unknown"
	}
	s := fmt.Sprintf("$%.2f", u.CostUSD)
	if u.CostUSD > 0 && u.CostUSD < 0.01 {
		s = fmt.Sprintf("$%.4f", u.CostUSD)
	}
	if u.CostEstimated {
		s = "~" + s
	}
	return s
}

// duration renders a duration for people: 45.2s, 3m05s, 1h02m.
func duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d/time.Millisecond)
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	default:
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
}

// stamp renders a time in UTC, or "—" when zero.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// iterLimit renders "x/max" or "x/∞".
func iterLimit(n, limit int) string {
	if limit <= 0 {
		return fmt.Sprintf("%d/∞", n)
	}
	return fmt.Sprintf("%d/%d", n, limit)
}

// gateMark is one gate's outcome as a word: pass, fail or infra.
func gateMark(g state.GateSummary) string {
	switch {
	case g.Infra:
		return "infra"
	case g.Passed:
		return "pass"
	default:
		return "fail"
	}
}

// gateNames lists every gate seen in the history, in first-seen order.
func gateNames(h []state.Record) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range h {
		for _, g := range r.Gates {
			if !seen[g.Name] {
				seen[g.Name] = true
				names = append(names, g.Name)
			}
		}
	}
	return names
}

// elapsed is how long the run has been at work ([state.State.Elapsed]).
func elapsed(s *state.State, now time.Time) time.Duration { return s.Elapsed(now) }

// lastDecision is the decision of the last recorded iteration.
func lastDecision(s *state.State) string {
	if n := len(s.History); n > 0 {
		return s.History[n-1].Decision
	}
	return s.LastDecision
}

// usageOf is a usage holding only a known cost, for rendering.
func usageOf(cost float64, estimated bool) evidence.Usage {
	return evidence.Usage{CostUSD: cost, CostKnown: true, CostEstimated: estimated}
}
