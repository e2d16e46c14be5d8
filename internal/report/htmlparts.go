package report

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/agentloop/agentloop/internal/decide"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
)

// baselineRecord is the tree before the agent's first iteration, as iteration
// 0: its gates, and its failing tests and findings and its quality as the
// decision engine counts them for an iteration. ok is false without a baseline.
func baselineRecord(s *loop.State) (rec loop.Record, ok bool) {
	if !s.BaselineDone || len(s.Baseline) == 0 {
		return loop.Record{}, false
	}
	ev := evidence.Iteration{Gates: s.Baseline}
	rec = loop.Record{N: 0, Failing: decide.Failing(ev), Quality: decide.Quality(ev)}
	for _, g := range s.Baseline {
		rec.Gates = append(rec.Gates, loop.SummarizeGate(g))
	}
	return rec, true
}

// usageKnown says whether any iteration reported its tokens, and its cost.
func usageKnown(h []loop.Record) (tokens, cost bool) {
	for _, r := range h {
		tokens = tokens || r.Usage.TokensKnown
		cost = cost || r.Usage.CostKnown
	}
	return tokens, cost
}

// unreportedText is the one line that stands for the charts of what the agent
// CLI never reported (tokens, cost, or both); "" when it reported both.
func unreportedText(h []loop.Record) string {
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

// charts builds the per-iteration charts: quality and failing (from the
// baseline, iteration 0, when there is one), tokens and cost (when the agent
// CLI reported them), duration. No iteration, no charts.
func charts(s *loop.State) []chart {
	h := s.History
	if len(h) == 0 {
		return nil
	}
	withBase := h
	if base, ok := baselineRecord(s); ok {
		withBase = append([]loop.Record{base}, h...)
	}
	pts := func(h []loop.Record, f func(loop.Record) point) []point {
		out := make([]point, len(h))
		for i, r := range h {
			out[i] = f(r)
			out[i].N = r.N
		}
		return out
	}
	num := func(v float64) string { return count(int64(v)) }
	when := func(r loop.Record) string {
		if r.N == 0 {
			return "before the agent (baseline): "
		}
		return ""
	}
	best := s.Best
	cs := []chart{
		{ID: "quality", Title: "Quality score", Note: decide.QualityMeaning, Kind: "line", Max: 1, Color: "#7c3aed",
			Fmt: func(v float64) string { return fmt.Sprintf("%.2f", v) },
			Pts: pts(withBase, func(r loop.Record) point {
				return point{Value: r.Quality, Known: true, Label: when(r) + fmt.Sprintf("%.2f", r.Quality), Best: best != nil && r.N > 0 && best.Iteration == r.N}
			})},
		{ID: "failing", Title: "Failing tests and findings", Kind: "bar", Color: "#dc2626", Fmt: num, Int: true,
			Pts: pts(withBase, func(r loop.Record) point {
				return point{Value: float64(len(r.Failing)), Known: true, Label: when(r) + fmt.Sprintf("%d failing", len(r.Failing))}
			})},
	}
	if len(withBase) > len(h) {
		cs[0].Note += " Iteration 0 is the code before the agent's first iteration."
		cs[1].Note = "Iteration 0 is the code before the agent's first iteration: what failed already."
	}
	tokens, cost := usageKnown(h)
	if tokens {
		cs = append(cs, chart{ID: "tokens", Title: "Tokens per iteration", Kind: "bar", Color: "#2563eb", Fmt: compact, Int: true,
			Pts: pts(h, func(r loop.Record) point {
				return point{Value: float64(r.Usage.TotalTokens()), Known: r.Usage.TokensKnown, Label: tokensText(r.Usage) + " tokens"}
			})})
	}
	if cost {
		cs = append(cs, chart{ID: "cost", Title: "Cost per iteration (USD)", Kind: "line", Color: "#0891b2",
			Fmt: func(v float64) string { return fmt.Sprintf("$%.2f", v) },
			Pts: pts(h, func(r loop.Record) point {
				return point{Value: r.Usage.CostUSD, Known: r.Usage.CostKnown, Label: costText(r.Usage)}
			})})
	}
	return append(cs, chart{ID: "duration", Title: "Duration (seconds)", Kind: "bar", Color: "#64748b",
		Fmt: func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 32) + "s" },
		Pts: pts(h, func(r loop.Record) point {
			return point{Value: r.Duration.Duration().Seconds(), Known: true, Label: duration(r.Duration.Duration())}
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

// timeline is the gate × iteration grid, from the baseline (iteration 0) when
// there is one.
func timeline(s *loop.State, names []string) []timelineRow {
	h := s.History
	if base, ok := baselineRecord(s); ok && len(h) > 0 && len(h) <= maxIterationRows {
		h = append([]loop.Record{base}, h...)
	}
	h = h[max(0, len(h)-maxIterationRows):]
	rows := make([]timelineRow, len(names))
	for i, name := range names {
		rows[i].Gate = name
		for _, r := range h {
			it := fmt.Sprintf("iteration %d", r.N)
			if r.N == 0 {
				it = "before the agent (baseline)"
			}
			c := timelineCell{N: r.N, Mark: "none", Title: fmt.Sprintf("%s: %s not run", it, name)}
			for _, g := range r.Gates {
				if g.Name != name {
					continue
				}
				c.Mark = gateMark(g)
				c.Title = fmt.Sprintf("%s: %s %s (exit %d, %d failures)", it, name, c.Mark, g.ExitCode, g.Failures)
				if !g.Required {
					c.Title += ", optional"
				}
			}
			rows[i].Cells = append(rows[i].Cells, c)
		}
	}
	return rows
}

func budget(name string, u evidence.Usage) budgetRow {
	row := budgetRow{Name: name, Tokens: tokensText(u), In: "unknown", Out: "unknown", Cost: costText(u)}
	if u.TokensKnown {
		row.In = count(u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens)
		row.Out = count(u.OutputTokens)
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

func eventRows(evs []loop.Event) []eventRow {
	if len(evs) > maxEventRows {
		evs = evs[len(evs)-maxEventRows:]
	}
	rows := make([]eventRow, len(evs))
	for i, ev := range evs {
		var data string
		if b, err := json.Marshal(ev.Data); err == nil && string(b) != "{}" && string(b) != "null" {
			data = truncate(string(b), 240)
		}
		rows[i] = eventRow{Time: ev.Time.UTC().Format("15:04:05"), Type: string(ev.Type()), N: ev.Iteration, Data: data}
	}
	return rows
}
