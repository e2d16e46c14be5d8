package report

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
)

// charts builds the per-iteration charts: quality, failing, tokens, cost, duration.
func charts(h []loop.Record, best *loop.Checkpoint) []chart {
	pts := func(f func(loop.Record) point) []point {
		out := make([]point, len(h))
		for i, r := range h {
			out[i] = f(r)
			out[i].N = r.N
		}
		return out
	}
	num := func(v float64) string { return count(int64(v)) }
	return []chart{
		{ID: "quality", Title: "Quality score", Kind: "line", Max: 1, Color: "#7c3aed",
			Fmt: func(v float64) string { return fmt.Sprintf("%.2f", v) },
			Pts: pts(func(r loop.Record) point {
				return point{Value: r.Quality, Known: true, Label: fmt.Sprintf("%.2f", r.Quality), Best: best != nil && best.Iteration == r.N}
			})},
		{ID: "failing", Title: "Failing tests and findings", Kind: "bar", Color: "#dc2626", Fmt: num, Int: true,
			Pts: pts(func(r loop.Record) point {
				return point{Value: float64(len(r.Failing)), Known: true, Label: fmt.Sprintf("%d failing", len(r.Failing))}
			})},
		{ID: "tokens", Title: "Tokens per iteration", Kind: "bar", Color: "#2563eb", Fmt: compact, Int: true,
			Pts: pts(func(r loop.Record) point {
				return point{Value: float64(r.Usage.TotalTokens()), Known: r.Usage.TokensKnown, Label: tokensText(r.Usage) + " tokens"}
			})},
		{ID: "cost", Title: "Cost per iteration (USD)", Kind: "line", Color: "#0891b2",
			Fmt: func(v float64) string { return fmt.Sprintf("$%.2f", v) },
			Pts: pts(func(r loop.Record) point {
				return point{Value: r.Usage.CostUSD, Known: r.Usage.CostKnown, Label: costText(r.Usage)}
			})},
		{ID: "duration", Title: "Duration (seconds)", Kind: "bar", Color: "#64748b",
			Fmt: func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 32) + "s" },
			Pts: pts(func(r loop.Record) point {
				return point{Value: r.Duration.Duration().Seconds(), Known: true, Label: duration(r.Duration.Duration())}
			})},
	}
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

// timeline is the gate × iteration grid.
func timeline(h []loop.Record, names []string) []timelineRow {
	rows := make([]timelineRow, len(names))
	for i, name := range names {
		rows[i].Gate = name
		for _, r := range h {
			c := timelineCell{N: r.N, Mark: "none", Title: fmt.Sprintf("iteration %d: %s not run", r.N, name)}
			for _, g := range r.Gates {
				if g.Name != name {
					continue
				}
				c.Mark = gateMark(g)
				c.Title = fmt.Sprintf("iteration %d: %s %s (exit %d, %d failures)", r.N, name, c.Mark, g.ExitCode, g.Failures)
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
const maxEventRows = 300

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
