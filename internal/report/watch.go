package report

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/textcut"
)

// WatchRow is one run (or graph task) in `agentloop watch`: its status, and
// for a running one what it is doing now.
type WatchRow struct {
	StatusRow
	Live *state.LiveStatus // nil: not running, or not known yet
}

// WatchColumns are the names of the columns of a [WatchRow]'s [WatchRow.Cells].
func WatchColumns() []string {
	return []string{"NAME", "STATUS", "ITERATION", "PHASE", "TOKENS", "COST", "LAST DECISION", "ELAPSED", "TOOL"}
}

// Cells are the row's columns ([WatchColumns]) at now: a running one's phase
// with how long it has been in it, its tokens and cost with the running
// agent's usage so far and the tool call it runs (cut to 48 characters).
func (r WatchRow) Cells(now time.Time) []string {
	tokens, cost := int64(-1), -1.0
	if r.Tokens != nil {
		tokens = *r.Tokens
	}
	if r.CostUSD != nil {
		cost = *r.CostUSD
	}
	phase, tool := "—", ""
	iter := iterLimit(r.Iteration, r.MaxIterations)
	switch {
	case r.Live != nil:
		phase = fmt.Sprintf("%s %s", r.Live.Phase, duration(now.Sub(r.Live.Since).Truncate(time.Second)))
		if r.Live.GateOverdue(now) {
			phase = fmt.Sprintf("gates: %s running %s (usually %s)", r.Live.Gate,
				duration(now.Sub(r.Live.GateSince).Truncate(time.Second)), duration(r.Live.GateUsually))
		}
		if r.Live.Iteration > r.Iteration {
			iter = iterLimit(r.Live.Iteration, r.MaxIterations)
		}
		if u := r.Live.Usage; u.TokensKnown {
			tokens = max(tokens, 0) + u.TotalTokens()
		}
		if u := r.Live.Usage; u.CostKnown {
			cost = max(cost, 0) + u.CostUSD
		}
		tool = textcut.Runes(r.Live.Tool, 48)
	case r.Status == state.StatusEscalated:
		phase = "waiting for you"
	}
	tokText, costText := "unknown", "unknown"
	if tokens >= 0 {
		tokText = budget.Thousands(tokens)
	}
	if cost >= 0 {
		costText = fmt.Sprintf("$%.2f", cost)
	}
	return []string{r.Name, string(r.Status), iter, phase, tokText, costText, cmp.Or(r.LastDecision, dash), duration(r.Elapsed), tool}
}

// WatchTable writes the runs as an aligned table of their [WatchRow.Cells].
func WatchTable(w io.Writer, rows []WatchRow, now time.Time) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No runs yet. Start one with: agentloop run")
		return err
	}
	table := [][]string{WatchColumns()}
	for _, r := range rows {
		table = append(table, r.Cells(now))
	}
	var b strings.Builder
	widths := ColumnWidths(table)
	for _, row := range table {
		var line strings.Builder
		for i, c := range row {
			line.WriteString(c)
			if i < len(row)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ColumnWidths is the width in characters of each column of table, its
// widest cell's.
func ColumnWidths(table [][]string) []int {
	var widths []int
	for _, row := range table {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	return widths
}
