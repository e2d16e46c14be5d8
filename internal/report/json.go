package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
)

// JSONSchema names the shape of the document [JSON] writes.
const JSONSchema = "agentloop.report/v1"

// jsonDoc is the JSON report: a summary computed for readers, then the raw material.
type jsonDoc struct {
	Schema     string       `json:"schema"`
	Summary    jsonSummary  `json:"summary"`
	State      *loop.State  `json:"state"`
	Events     []loop.Event `json:"events"`
	Escalation string       `json:"escalation,omitempty"`
	Tasks      []TaskRow    `json:"tasks,omitempty"`
}

type jsonSummary struct {
	Name         string         `json:"name"`
	RunID        string         `json:"run_id"`
	Procedure    string         `json:"procedure"`
	Status       loop.Status    `json:"status"`
	Reason       string         `json:"reason,omitempty"`
	Iterations   int            `json:"iterations"`
	Max          int            `json:"max_iterations"`
	LastDecision string         `json:"last_decision,omitempty"`
	BestQuality  *float64       `json:"best_quality,omitempty"`
	Elapsed      loop.Millis    `json:"elapsed_ms"`
	Tokens       *int64         `json:"tokens"`   // null when unknown
	CostUSD      *float64       `json:"cost_usd"` // null when unknown
	Total        evidence.Usage `json:"total_usage"`
}

// JSON writes the run report as one indented JSON document (schema [JSONSchema]).
// Unknown token counts and costs are null in the summary, never 0.
func JSON(w io.Writer, r Run) error {
	s := r.state()
	total := s.Spend.Total()
	sum := jsonSummary{
		Name: s.Name, RunID: s.RunID, Procedure: s.Procedure, Status: s.Status, Reason: s.Reason,
		Iterations: s.TotalIterations, Max: s.MaxIterations, LastDecision: lastDecision(s),
		Elapsed: loop.MillisOf(elapsed(s, reportNow(s))), Total: total,
	}
	if q, ok := bestQuality(s.History); ok {
		sum.BestQuality = &q
	}
	if total.TokensKnown {
		t := total.TotalTokens()
		sum.Tokens = &t
	}
	if total.CostKnown {
		c := math.Round(total.CostUSD*1e6) / 1e6
		sum.CostUSD = &c
	}
	events := r.Events
	if events == nil {
		events = []loop.Event{}
	}
	doc := jsonDoc{Schema: JSONSchema, Summary: sum, State: s, Events: events, Escalation: r.Escalation, Tasks: r.Tasks}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write the JSON report: %w", err)
	}
	return nil
}

// bestQuality is the highest quality score in the history.
func bestQuality(h []loop.Record) (float64, bool) {
	best, ok := 0.0, false
	for _, r := range h {
		if !ok || r.Quality > best {
			best, ok = r.Quality, true
		}
	}
	return best, ok
}

// reportNow is the reference time for a finished report: its last activity.
func reportNow(s *loop.State) time.Time {
	if n := len(s.Sessions); n > 0 && s.Sessions[n-1].EndedAt.After(s.LastIterationAt) {
		return s.Sessions[n-1].EndedAt
	}
	return s.LastIterationAt
}
