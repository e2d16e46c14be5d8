package state

import "time"

// Moment is one entry of a run's history: an iteration's record, an agent
// attempt cut short, or a hand-off; exactly one of Record, Cut and Handoff is
// set. Seq is the attempt's run-wide number (a hand-off's: the attempt it
// followed, 0 before the first); Segment is the segment it belongs to (a
// guidance's: the one it opens). Both are known for the records of older
// builds too, which kept neither: their attempts are numbered in order, and a
// record whose iteration number does not grow starts a segment.
type Moment struct {
	Record  *Record
	Cut     *Interrupted
	Handoff *Handoff
	Seq     int
	Segment int
}

// Iteration is the moment's iteration in its segment (0 for a hand-off).
func (m Moment) Iteration() int {
	switch {
	case m.Record != nil:
		return m.Record.N
	case m.Cut != nil:
		return m.Cut.Iteration
	}
	return 0
}

// startedAt is when the moment's attempt started, or the hand-off happened.
func (m Moment) startedAt() time.Time {
	switch {
	case m.Record != nil:
		return m.Record.StartedAt
	case m.Cut != nil:
		return m.Cut.StartedAt
	case m.Handoff != nil:
		return m.Handoff.At
	}
	return time.Time{}
}

// Timeline is the run's whole history in the order it happened: its recorded
// iterations and cut attempts by their run-wide number, each hand-off after
// the attempt it followed. An attempt a crash cut short, found only when the
// next session started, comes before that session's resume: it started before
// the person resumed the run. The moments point into the state's lists.
func (s *State) Timeline() []Moment {
	h, c := s.History, s.Interrupted
	attempts := make([]Moment, 0, len(h)+len(c))
	for i, j := 0, 0; i < len(h) || j < len(c); {
		if j == len(c) || i < len(h) && recordFirst(&h[i], &c[j]) {
			attempts = append(attempts, Moment{Record: &h[i], Seq: h[i].Seq, Segment: h[i].Segment})
			i++
		} else {
			attempts = append(attempts, Moment{Cut: &c[j], Seq: c[j].Seq, Segment: c[j].Segment})
			j++
		}
	}
	seq, seg, prevN := 0, 1, 0
	for k := range attempts {
		m := &attempts[k]
		if m.Seq > 0 {
			seq = m.Seq
		} else {
			seq++
			m.Seq = seq
		}
		if m.Segment > 0 {
			seg = m.Segment
		} else {
			if m.Record != nil && prevN > 0 && m.Record.N <= prevN {
				seg++
			}
			m.Segment = seg
		}
		if m.Record != nil {
			prevN = m.Record.N
		}
	}
	out := make([]Moment, 0, len(attempts)+len(s.Handoffs))
	k := 0
	for i := range s.Handoffs {
		hd := &s.Handoffs[i]
		for k < len(attempts) && (attempts[k].Seq <= hd.After || before(attempts[k], hd.At)) {
			out = append(out, attempts[k])
			k++
		}
		out = append(out, Moment{Handoff: hd, Seq: hd.After, Segment: max(hd.Segment, 1)})
	}
	return append(out, attempts[k:]...)
}

// recordFirst orders a record and a cut attempt: by their run-wide numbers,
// else (older builds numbered neither) by when they started.
func recordFirst(r *Record, c *Interrupted) bool {
	if r.Seq > 0 && c.Seq > 0 {
		return r.Seq < c.Seq
	}
	return !c.StartedAt.Before(r.StartedAt)
}

// before reports whether attempt m started before t (both known).
func before(m Moment, t time.Time) bool {
	at := m.startedAt()
	return !at.IsZero() && !t.IsZero() && at.Before(t)
}

// HistorySegment is one segment of a run's history: from the start, or from
// a guidance, to the next guidance.
type HistorySegment struct {
	N int
	// Opened is the hand-off that opened the segment: the run's start or a
	// guidance; nil when the history does not hold it (older builds).
	Opened *Handoff
	// Moments are the segment's attempts and its other hand-offs (resume,
	// accept, abort), in order.
	Moments []Moment
}

// Segments splits a run's timeline ([State.Timeline]) into its segments, in
// order.
func Segments(tl []Moment) []HistorySegment {
	var out []HistorySegment
	for _, m := range tl {
		n := len(out)
		opens := m.Handoff != nil && (m.Handoff.Kind == HandoffGuidance || m.Handoff.Kind == HandoffStart)
		switch {
		case n == 0 || m.Segment != out[n-1].N || m.Handoff != nil && m.Handoff.Kind == HandoffGuidance:
			g := HistorySegment{N: m.Segment}
			if opens {
				g.Opened = m.Handoff
			} else {
				g.Moments = []Moment{m}
			}
			out = append(out, g)
		default:
			out[n-1].Moments = append(out[n-1].Moments, m)
		}
	}
	return out
}
