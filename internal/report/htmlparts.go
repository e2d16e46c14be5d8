package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decide"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/textcut"
)

// baselineRecord is the tree before the agent's first iteration, as iteration
// 0: its gates, and its failing tests and findings and its quality as the
// decision engine counts them for an iteration. ok is false without a baseline.
func baselineRecord(s *state.State) (rec state.Record, ok bool) {
	if !s.BaselineDone || len(s.Baseline) == 0 {
		return state.Record{}, false
	}
	ev := evidence.Iteration{Gates: s.Baseline}
	rec = state.Record{N: 0, Failing: decide.Failing(ev), Quality: decide.Quality(ev)}
	for _, g := range s.Baseline {
		rec.Gates = append(rec.Gates, state.SummarizeGate(g))
	}
	return rec, true
}

// usageKnown says whether any iteration reported its tokens, and its cost.
func usageKnown(h []state.Record) (tokens, cost bool) {
	for _, r := range h {
		tokens = tokens || r.Usage.TokensKnown
		cost = cost || r.Usage.CostKnown
	}
	return tokens, cost
}

// unreportedText is the one line that stands for the charts of what the agent
// CLI never reported (tokens, cost, or both); "" when it reported both.
func unreportedText(h []state.Record) string {
	tokens, cost := usageKnown(h)
	switch {
	case !tokens && !cost:
		return "Tokens and cost per iteration: not reported by the agent CLI."
	case !tokens:
		return "Tokens per iteration: not reported by the agent CLI."
	case !cost:
		return "Cost per iteration: not reported by the agent CLI."
	}
	return ""
}

// attemptsOf are a run's agent attempts in order (recorded and cut short),
// from the baseline (attempt 0) when there is one.
func attemptsOf(s *state.State, h history) (all []state.Moment, base bool) {
	all = make([]state.Moment, 0, len(s.History)+len(s.Interrupted)+1)
	if rec, ok := baselineRecord(s); ok && len(s.History) > 0 {
		all = append(all, state.Moment{Record: &rec, Segment: 1})
		base = true
	}
	for _, m := range h.timeline {
		if m.Handoff == nil {
			all = append(all, m)
		}
	}
	return all, base
}

// attemptName names an attempt for people: "attempt 5 (iteration 2 of
// segment 2)", "attempt 4 (iteration 2), cut short", "before the agent
// (baseline)".
func attemptName(m state.Moment, many bool) string {
	if m.Seq == 0 && m.Record != nil {
		return "before the agent (baseline)"
	}
	s := fmt.Sprintf("attempt %d (iteration %d", m.Seq, m.Iteration())
	if many {
		s += fmt.Sprintf(" of segment %d", m.Segment)
	}
	s += ")"
	if m.Cut != nil {
		s += ", cut short"
	}
	return s
}

// charts builds the per-attempt charts: quality and failing (from the
// baseline, attempt 0, when there is one), tokens and cost (when the agent CLI
// reported them), duration. Every attempt has its place on the x axis, those
// cut short too (marked as such where they have no value), and a dashed line
// marks where a segment starts. No iteration, no charts.
func charts(s *state.State, h history) []chart {
	if len(s.History) == 0 {
		return nil
	}
	all, base := attemptsOf(s, h)
	withBase, noBase := all, all
	if base {
		noBase = all[1:]
	}
	many := h.many()
	pts := func(ms []state.Moment, f func(state.Moment) point) []point {
		out := make([]point, len(ms))
		for i, m := range ms {
			out[i] = f(m)
			out[i].N, out[i].Segment, out[i].Name = m.Seq, m.Segment, attemptName(m, many)
			out[i].Cut = m.Cut != nil
		}
		return out
	}
	num := func(v float64) string { return budget.Thousands(int64(v)) }
	best := s.Best
	isBest := func(m state.Moment) bool {
		if best == nil || m.Seq == 0 || m.Record == nil {
			return false
		}
		if best.Seq > 0 {
			return best.Seq == m.Seq
		}
		return best.Iteration == m.Record.N
	}
	cs := []chart{
		{ID: "quality", Title: "Quality score", Note: decide.QualityMeaning, Kind: "line", Max: 1, Color: "#7c3aed",
			Fmt: func(v float64) string { return fmt.Sprintf("%.2f", v) },
			Pts: pts(withBase, func(m state.Moment) point {
				if m.Record == nil {
					return point{}
				}
				return point{Value: m.Record.Quality, Known: true, Label: fmt.Sprintf("%.2f", m.Record.Quality), Best: isBest(m)}
			})},
		{ID: "failing", Title: "Failing tests and findings", Kind: "bar", Color: "#dc2626", Fmt: num, Int: true,
			Pts: pts(withBase, func(m state.Moment) point {
				if m.Record == nil {
					return point{}
				}
				return point{Value: float64(len(m.Record.Failing)), Known: true, Label: fmt.Sprintf("%d failing", len(m.Record.Failing))}
			})},
	}
	if base {
		cs[0].Note += " Attempt 0 is the code before the agent's first iteration."
		cs[1].Note = "Attempt 0 is the code before the agent's first iteration: what failed already."
	}
	usageOf := func(m state.Moment) evidence.Usage {
		if m.Cut != nil {
			return m.Cut.Usage
		}
		return m.Record.Usage
	}
	tokens, cost := usageKnown(s.History)
	if tokens {
		cs = append(cs, chart{ID: "tokens", Title: "Tokens per attempt", Kind: "bar", Color: "#2563eb", Fmt: compact, Int: true,
			Pts: pts(noBase, func(m state.Moment) point {
				u := usageOf(m)
				return point{Value: float64(u.TotalTokens()), Known: u.TokensKnown, Label: tokensText(u) + " tokens"}
			})})
	}
	if cost {
		cs = append(cs, chart{ID: "cost", Title: "Cost per attempt (USD)", Kind: "line", Color: "#0891b2",
			Fmt: chartMoney,
			Pts: pts(noBase, func(m state.Moment) point {
				u := usageOf(m)
				return point{Value: u.CostUSD, Known: u.CostKnown, Label: costText(u)}
			})})
	}
	return append(cs, chart{ID: "duration", Title: "Duration (seconds)", Kind: "bar", Color: "#64748b",
		Fmt: func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 32) + "s" },
		Pts: pts(noBase, func(m state.Moment) point {
			d := time.Duration(0)
			if m.Cut != nil {
				d = m.Cut.Duration.Duration()
			} else {
				d = m.Record.Duration.Duration()
			}
			return point{Value: d.Seconds(), Known: true, Label: duration(d)}
		})})
}

// compact renders 12500 as 12.5k.
func compact(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%gM", float64(int64(v/1e5))/10)
	case v >= 1e3:
		return fmt.Sprintf("%gk", float64(int64(v/1e2))/10)
	}
	return fmt.Sprint(int64(v))
}

// timeline is the gate × attempt grid, from the baseline (attempt 0) when
// there is one; an attempt cut short ran no gate. Past maxIterationRows
// attempts it shows the last ones.
func timeline(s *state.State, h history, names []string) []timelineRow {
	if len(s.History) == 0 {
		return nil
	}
	all, _ := attemptsOf(s, h)
	all = all[max(0, len(all)-maxIterationRows):]
	many := h.many()
	rows := make([]timelineRow, len(names))
	for i, name := range names {
		rows[i].Gate = name
		rows[i].Cells = make([]timelineCell, 0, len(all))
		seg := 1
		for _, m := range all {
			it := attemptName(m, many)
			c := timelineCell{N: m.Seq, Mark: "none", Title: fmt.Sprintf("%s: %s not run", it, name)}
			if m.Segment != seg && m.Segment > 0 {
				c.Segment, seg = m.Segment, m.Segment
			}
			if m.Cut != nil {
				c.Mark = "cut"
			} else {
				for _, g := range m.Record.Gates {
					if g.Name != name {
						continue
					}
					c.Mark = gateMark(g)
					c.Title = fmt.Sprintf("%s: %s %s (exit %d, %d failures)", it, name, c.Mark, g.ExitCode, g.Failures)
					if !g.Required {
						c.Title += ", optional"
					}
				}
			}
			rows[i].Cells = append(rows[i].Cells, c)
		}
	}
	return rows
}

func budgetOf(name string, u evidence.Usage) budgetRow {
	row := budgetRow{Name: name, Tokens: tokensText(u), In: "unknown", Out: "unknown", Cost: costText(u)}
	if u.TokensKnown {
		row.In = budget.Thousands(u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens)
		row.Out = budget.Thousands(u.OutputTokens)
	}
	return row
}

// statusClass maps a run, task or decision state to a colour class.
func statusClass(s string) string {
	switch s {
	case "succeeded", "completed", "proceed", "pass", "approve":
		return "ok"
	case "running", "retry", "refine", "expand", "continue":
		return "info"
	case "escalated", "escalate", "interrupted", "simplify", "request_changes", "infra":
		return "warn"
	case "aborted", "abort", "failed", "fail", "reject":
		return "bad"
	}
	return "muted"
}

// verdictText shows a review verdict the way the protocol names it.
func verdictText(v string) string {
	switch v {
	case evidence.VerdictApprove:
		return "APPROVED"
	case evidence.VerdictRequestChanges:
		return "NEEDS_REVISION"
	case evidence.VerdictReject:
		return "REJECTED"
	}
	return v
}

// eventRow is one line of the event log.
type eventRow struct {
	Time, Type, Data string
	N                int
}

// maxEventRows bounds the event log shown in the page (the most recent ones).
const maxEventRows = ShownEvents

// ShownEvents is how many of a run's last events the HTML report shows: a
// caller that writes only that report reads no more ([LoadRunDirLast]).
const ShownEvents = 300

func eventRows(evs []state.Event) []eventRow {
	if len(evs) > maxEventRows {
		evs = evs[len(evs)-maxEventRows:]
	}
	rows := make([]eventRow, len(evs))
	for i, ev := range evs {
		var data string
		if b, err := json.Marshal(ev.Data); err == nil && string(b) != "{}" && string(b) != "null" {
			data = textcut.Runes(string(b), 240)
		}
		rows[i] = eventRow{Time: ev.Time.UTC().Format("15:04:05"), Type: string(ev.Type()), N: ev.Iteration, Data: data}
	}
	return rows
}

// chartMoney is an amount on the cost chart: cents from a dollar up, else
// three significant digits (at least two decimals), so that the ticks of an
// axis under a cent read $0.0025, $0.005, … rather than $0.00, $0.01, $0.01.
func chartMoney(v float64) string {
	if v == 0 || math.Abs(v) >= 1 {
		return fmt.Sprintf("$%.2f", v)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	s := strconv.FormatFloat(r, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 < 2 {
		s += "0"
	}
	return "$" + s
}
