package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/state"
)

// StatusRow is one run (or task) in `agentloop status`.
type StatusRow struct {
	Name          string       `json:"name"`
	RunID         string       `json:"run_id,omitempty"`
	Procedure     string       `json:"procedure,omitempty"`
	Status        state.Status `json:"status"`
	Reason        string       `json:"reason,omitempty"`
	Iteration     int          `json:"iteration"`      // in its segment
	MaxIterations int          `json:"max_iterations"` // 0: unlimited
	Segment       int          `json:"segment"`        // one more with each guidance
	Attempts      int          `json:"attempts"`       // the last agent attempt of the run, every segment
	// Position is where the run stands in words: "4/6", or "1/10 of
	// segment 2, attempt 5".
	Position      string        `json:"position"`
	LastDecision  string        `json:"last_decision,omitempty"`
	Tokens        *int64        `json:"tokens"`   // null when unknown
	CostUSD       *float64      `json:"cost_usd"` // null when unknown
	CostEstimated bool          `json:"cost_estimated,omitempty"`
	StartedAt     time.Time     `json:"started_at,omitzero"`
	Elapsed       time.Duration `json:"elapsed_ns"`
	// Guided are the acknowledgements of the guidance people gave the running
	// loop ("Guidance applied in iteration 2 (from ann@box): …"), when its
	// history was loaded; Queued counts the guidance it has not taken yet.
	Guided []string `json:"guided,omitempty"`
	Queued int      `json:"guidance_queued,omitempty"`
}

// StatusRows builds one row per state, in the order given; now is the clock for
// the elapsed time of runs still running. Nil states are skipped.
func StatusRows(states []*state.State, now time.Time) []StatusRow {
	rows := make([]StatusRow, 0, len(states))
	for _, s := range states {
		if s == nil {
			continue
		}
		u := s.Spend.Total()
		row := StatusRow{
			Name: s.Name, RunID: s.RunID, Procedure: s.Procedure, Status: s.Status, Reason: s.Reason,
			Iteration: s.Iteration, MaxIterations: s.MaxIterations, LastDecision: lastDecision(s),
			Segment: max(s.Segment, 1), Attempts: s.Attempts, Position: position(max(s.Segment, 1), s.Iteration, s.MaxIterations, s.Attempts, false),
			StartedAt: s.StartedAt, Elapsed: elapsed(s, now), CostEstimated: u.CostEstimated,
		}
		for _, h := range s.Handoffs {
			if h.Kind == state.HandoffGuide {
				row.Guided = append(row.Guided, h.GuideLine())
			}
		}
		if u.TokensKnown {
			t := u.TotalTokens()
			row.Tokens = &t
		}
		if u.CostKnown {
			c := math.Round(u.CostUSD*1e6) / 1e6
			row.CostUSD = &c
		}
		rows = append(rows, row)
	}
	return rows
}

// StatusJSON writes the rows as a JSON array.
func StatusJSON(w io.Writer, rows []StatusRow) error {
	if rows == nil {
		rows = []StatusRow{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rows); err != nil {
		return fmt.Errorf("write the status: %w", err)
	}
	return nil
}

// StatusTable writes the rows as an aligned table; with color, statuses are
// coloured with ANSI escapes (alignment is computed on the plain text).
func StatusTable(w io.Writer, rows []StatusRow, color bool) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No runs yet. Start one with: agentloop run")
		return err
	}
	table := [][]string{{"NAME", "STATUS", "ITERATION", "LAST DECISION", "TOKENS", "COST", "ELAPSED"}}
	for _, r := range rows {
		tokens, cost := "unknown", "unknown"
		if r.Tokens != nil {
			tokens = budget.Thousands(*r.Tokens)
		}
		if r.CostUSD != nil {
			cost = costText(usageOf(*r.CostUSD, r.CostEstimated))
		}
		table = append(table, []string{r.Name, string(r.Status), r.Position,
			cmp.Or(r.LastDecision, dash), tokens, cost, duration(r.Elapsed)})
	}
	widths := make([]int, len(table[0]))
	for _, row := range table {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for ri, row := range table {
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if color && ri > 0 && i == 1 {
				c = statusColor(state.Status(c)) + c + "\x1b[0m"
			}
			if color && ri == 0 {
				c = "\x1b[1m" + c + "\x1b[0m"
			}
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(pad + "  ")
			}
		}
		b.WriteString("\n")
	}
	for _, r := range rows {
		for _, g := range r.Guided {
			fmt.Fprintf(&b, "%s: %s\n", r.Name, g)
		}
		if r.Queued > 0 {
			fmt.Fprintf(&b, "%s: %d guidance queued, for its next iteration\n", r.Name, r.Queued)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// statusColor is the ANSI colour of a status.
func statusColor(s state.Status) string {
	switch s {
	case state.StatusSucceeded, state.StatusCompleted:
		return "\x1b[32m"
	case state.StatusRunning:
		return "\x1b[36m"
	case state.StatusEscalated, state.StatusInterrupted:
		return "\x1b[33m"
	case state.StatusAborted:
		return "\x1b[31m"
	}
	return "\x1b[0m"
}
