package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// JSONSchema names the shape of the document [JSON] writes.
const JSONSchema = "agentloop.report/v1"

// jsonDoc is the JSON report: a summary computed for readers, then the raw material.
type jsonDoc struct {
	Schema     string        `json:"schema"`
	Summary    jsonSummary   `json:"summary"`
	State      *state.State  `json:"state"`
	Events     []state.Event `json:"events"`
	Escalation string        `json:"escalation,omitempty"`
	// Segments are the run's history by segment: who opened each (the
	// start, a guidance with its text), its attempts, its other hand-offs
	// and its escalation report.
	Segments    []jsonSegment    `json:"segments,omitempty"`
	Escalations []jsonEscalation `json:"escalations,omitempty"`
	Tasks       []TaskRow        `json:"tasks,omitempty"`
}

type jsonSegment struct {
	N        int            `json:"n"`
	Opened   *state.Handoff `json:"opened_by,omitempty"`
	Attempts []int          `json:"attempts"`      // the run-wide numbers of its attempts, in order
	Cut      []int          `json:"cut,omitempty"` // those cut short
	// Iterations counts its recorded iterations.
	Iterations int             `json:"iterations"`
	Handoffs   []state.Handoff `json:"handoffs,omitempty"` // resume, accept, abort
	Escalation string          `json:"escalation,omitempty"`
}

type jsonEscalation struct {
	Segment int    `json:"segment"`
	Path    string `json:"path"`
}

type jsonBest struct {
	Attempt   int     `json:"attempt,omitempty"`
	Segment   int     `json:"segment,omitempty"`
	Iteration int     `json:"iteration"`
	Quality   float64 `json:"quality"`
	Ref       string  `json:"ref"`
	Label     string  `json:"label"`
}

type jsonSummary struct {
	Name       string       `json:"name"`
	RunID      string       `json:"run_id"`
	Procedure  string       `json:"procedure"`
	Status     state.Status `json:"status"`
	Reason     string       `json:"reason,omitempty"`
	Iterations int          `json:"iterations"` // recorded, every segment
	Max        int          `json:"max_iterations"`
	// Where the run stands: its segment, the iteration in it, the last
	// attempt in the run, and the same in words.
	Segment      int            `json:"segment"`
	Iteration    int            `json:"iteration"`
	Attempts     int            `json:"attempts"`
	CutAttempts  int            `json:"cut_attempts,omitempty"`
	Position     string         `json:"position"`
	Best         *jsonBest      `json:"best_checkpoint,omitempty"`
	LastDecision string         `json:"last_decision,omitempty"`
	BestQuality  *float64       `json:"best_quality,omitempty"`
	Elapsed      state.Millis   `json:"elapsed_ms"`
	Tokens       *int64         `json:"tokens"`   // null when unknown
	CostUSD      *float64       `json:"cost_usd"` // null when unknown
	Total        evidence.Usage `json:"total_usage"`
}

// JSON writes the run report as one indented JSON document (schema [JSONSchema]).
// Unknown token counts and costs are null in the summary, never 0.
func JSON(w io.Writer, r Run) error {
	s := r.state()
	h := historyOf(r)
	total := s.Spend.Total()
	sum := jsonSummary{
		Name: s.Name, RunID: s.RunID, Procedure: s.Procedure, Status: s.Status, Reason: s.Reason,
		Iterations: s.TotalIterations, Max: s.MaxIterations, LastDecision: lastDecision(s),
		Segment: max(s.Segment, 1), Iteration: s.Iteration, Attempts: h.attempts, CutAttempts: h.cut, Position: statePosition(s),
		Elapsed: state.MillisOf(elapsed(s, reportNow(s))), Total: total,
	}
	if b := s.Best; b != nil {
		sum.Best = &jsonBest{Attempt: b.Seq, Segment: bestSegment(s), Iteration: b.Iteration, Quality: b.Quality, Ref: b.Ref, Label: bestText(s)}
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
		events = []state.Event{}
	}
	doc := jsonDoc{Schema: JSONSchema, Summary: sum, State: s, Events: events, Escalation: r.Escalation, Tasks: r.Tasks,
		Segments: jsonSegments(h)}
	for _, e := range r.Escalations {
		doc.Escalations = append(doc.Escalations, jsonEscalation{Segment: max(e.Segment, 1), Path: filepath.ToSlash(e.Path)})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write the JSON report: %w", err)
	}
	return nil
}

func jsonSegments(h history) []jsonSegment {
	out := make([]jsonSegment, 0, len(h.segments))
	for _, g := range h.segments {
		js := jsonSegment{N: g.N, Opened: g.Opened, Attempts: []int{}, Escalation: h.escalations[g.N]}
		for _, m := range g.Moments {
			switch {
			case m.Handoff != nil:
				js.Handoffs = append(js.Handoffs, *m.Handoff)
			case m.Cut != nil:
				js.Attempts = append(js.Attempts, m.Seq)
				js.Cut = append(js.Cut, m.Seq)
			default:
				js.Attempts = append(js.Attempts, m.Seq)
				js.Iterations++
			}
		}
		out = append(out, js)
	}
	return out
}

// bestQuality is the highest quality score in the history.
func bestQuality(h []state.Record) (float64, bool) {
	best, ok := 0.0, false
	for _, r := range h {
		if !ok || r.Quality > best {
			best, ok = r.Quality, true
		}
	}
	return best, ok
}

// reportNow is the reference time for a finished report: its last activity.
func reportNow(s *state.State) time.Time {
	if n := len(s.Sessions); n > 0 && s.Sessions[n-1].EndedAt.After(s.LastIterationAt) {
		return s.Sessions[n-1].EndedAt
	}
	return s.LastIterationAt
}
