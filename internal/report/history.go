package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/state"
)

// A run's history as every format shows it: its segments (the start, then one
// more with each guidance), each attempt in them with its run-wide number and
// its iteration in the segment, the attempts cut short, each hand-off in its
// place with who, when and what they said, and the escalation report that
// ended a segment.

// history is a run's history made ready for the renderers.
type history struct {
	timeline    []state.Moment // every attempt and hand-off, in order ([state.State.Timeline])
	segments    []state.HistorySegment
	escalations map[int]string // a segment's escalation report, by segment
	recorded    int            // iterations recorded
	cut         int            // attempts cut short
	attempts    int            // every attempt: the run-wide sequence
}

func historyOf(r Run) history {
	s := r.state()
	tl := s.Timeline()
	h := history{timeline: tl, segments: state.Segments(tl), recorded: len(s.History), cut: len(s.Interrupted)}
	h.attempts = max(s.Attempts, h.recorded+h.cut)
	if len(r.Escalations) > 0 {
		h.escalations = make(map[int]string, len(r.Escalations))
		for _, e := range r.Escalations {
			h.escalations[max(e.Segment, 1)] = e.Path
		}
	}
	return h
}

// many reports whether the run has more than one segment.
func (h history) many() bool { return len(h.segments) > 1 }

// position says where a run stands, for people: "4/6" (iteration 4 of at most
// 6) while a run has one segment and every attempt in it was recorded, else
// with its segment and its last attempt: "1/10 of segment 2, attempt 5". In
// words, a run without an iteration limit is at "4 (no iteration limit)",
// else at "4/∞".
func position(segment, iteration, limit, attempts int, words bool) string {
	s := iterLimit(iteration, limit)
	if words && limit <= 0 {
		s = fmt.Sprintf("%d (no iteration limit)", iteration)
	}
	if segment > 1 {
		s += fmt.Sprintf(" of segment %d", segment)
	}
	if attempts > 0 && (segment > 1 || attempts != iteration) {
		s += fmt.Sprintf(", attempt %d", attempts)
	}
	return s
}

// statePosition is [position] of a run's state, in words.
func statePosition(s *state.State) string {
	return position(max(s.Segment, 1), s.Iteration, s.MaxIterations, s.Attempts, true)
}

// attemptsText counts a run's attempts: "5" or "6: 5 recorded, 1 cut short",
// with "in 3 segments" when there are several.
func (h history) attemptsText() string {
	s := fmt.Sprint(h.recorded)
	if h.cut > 0 {
		s = fmt.Sprintf("%d: %d recorded, %d cut short", h.attempts, h.recorded, h.cut)
	}
	if h.many() {
		s += fmt.Sprintf(", in %d segments", len(h.segments))
	}
	return s
}

// segmentTitle is a segment's heading: "Segment 2".
func segmentTitle(g state.HistorySegment) string { return fmt.Sprintf("Segment %d", g.N) }

// marks renders the parts of a sentence of the history: plain text, and
// code (a commit, a ref, a path); the Markdown and the HTML report each have
// theirs.
type marks struct{ text, code func(string) string }

var (
	mdMarks   = marks{text: func(s string) string { return s }, code: mdCode}
	htmlMarks = marks{text: esc, code: func(s string) string { return "<code>" + esc(s) + "</code>" }}
)

// who names a hand-off's person and time: " by dev@host at 2026-03-14
// 10:00:00Z" (" from dev@host …" with from).
func who(h *state.Handoff, from bool) string {
	s := ""
	if h.By != "" && from {
		s += " from " + h.By
	} else if h.By != "" {
		s += " by " + h.By
	}
	if !h.At.IsZero() {
		s += " at " + stamp(h.At)
	}
	return s
}

// handoffText is a hand-off as one sentence; a guidance's text is quoted by
// the renderer after it.
func handoffText(h *state.Handoff, mk marks) string {
	at := ""
	if h.Checkpoint != "" {
		at = mk.text("; the work tree is at ") + mk.code(shortCommit(h.Checkpoint))
	}
	var s string
	switch h.Kind {
	case state.HandoffStart:
		s = "Started" + who(h, false)
	case state.HandoffResume:
		s = "Resumed" + who(h, false)
	case state.HandoffGuidance:
		s = "Guidance" + who(h, true)
		if h.Architecture {
			s += " (an architecture decision, recorded as an ADR)"
		}
		return mk.text(s + ":")
	case state.HandoffAccept:
		return mk.text("Accepted"+who(h, false)) + at + mk.text(".")
	case state.HandoffAbort:
		return mk.text("Aborted"+who(h, false)) + at + mk.text(".")
	default:
		s = "Hand-off (" + h.Kind + ")" + who(h, false)
	}
	return mk.text(s + ".")
}

// cutText is an attempt cut short as one sentence.
func cutText(m state.Moment, mk marks) string {
	c := m.Cut
	s := fmt.Sprintf("Attempt %d (iteration %d) was cut short", m.Seq, c.Iteration)
	if c.Duration > 0 {
		s += " after " + duration(c.Duration.Duration())
	}
	if c.Reason != "" {
		s += ": " + c.Reason
	}
	out := mk.text(s)
	if c.Cut != "" {
		out += mk.text("; what it left is kept in ") + mk.code(c.Cut)
	}
	if u := c.Usage.Add(c.Reviewer); u.CostKnown || u.TokensKnown {
		out += mk.text("; it spent " + costText(u))
	}
	return out + mk.text(".")
}

// escalatedText is the line after the attempt whose decision escalated: where
// its report is.
func (h history) escalatedText(segment int, mk marks) string {
	if p, ok := h.escalations[segment]; ok {
		return mk.text("Escalated: the report is ") + mk.code(filepath.ToSlash(p)) + mk.text(".")
	}
	return mk.text("Escalated.")
}

// escalatedAt reports whether moment m ends its segment with an escalation.
func escalatedAt(m state.Moment) bool {
	return m.Record != nil && m.Record.Decision == string(state.ActionEscalate)
}

// shortCommit shortens a commit name for people (12 hex digits); a ref name
// stays whole.
func shortCommit(c string) string {
	if len(c) == 40 && !strings.Contains(c, "/") {
		return c[:12]
	}
	return c
}

// bestText names the best checkpoint by its attempt: "attempt 5 (iteration 2
// of segment 2), quality 0.62"; "" without one.
func bestText(s *state.State) string {
	b := s.Best
	if b == nil {
		return ""
	}
	where := fmt.Sprintf("iteration %d", b.Iteration)
	if b.Seq > 0 {
		if seg := bestSegment(s); seg > 1 || max(s.Segment, 1) > 1 && seg > 0 {
			where += fmt.Sprintf(" of segment %d", seg)
		}
		where = fmt.Sprintf("attempt %d (%s)", b.Seq, where)
	}
	return fmt.Sprintf("%s, quality %.2f", where, b.Quality)
}

// bestSegment is the segment of the best checkpoint's attempt, 0 when unknown.
func bestSegment(s *state.State) int {
	if s.Best == nil || s.Best.Seq == 0 {
		return 0
	}
	for i := len(s.History) - 1; i >= 0; i-- {
		if s.History[i].Seq == s.Best.Seq {
			return s.History[i].Segment
		}
	}
	return 0
}
