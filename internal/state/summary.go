package state

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/decision"
)

// SegmentSummaries recalls a run's history by segment for an escalation
// report, the segment it is in last: who opened each (the start, or guidance
// with its text), its attempts by their run-wide numbers, and how each earlier
// one ended. None for a run of one segment: its report's table says it all.
func SegmentSummaries(st *State) []decision.SegmentSummary {
	segs := Segments(st.Timeline())
	if len(segs) < 2 {
		return nil
	}
	out := make([]decision.SegmentSummary, 0, len(segs))
	for i, g := range segs {
		s := decision.SegmentSummary{N: g.N, Opened: "started"}
		if h := g.Opened; h != nil {
			s.Opened = "started"
			if h.Kind == HandoffGuidance {
				s.Opened, s.Guidance = "guidance", h.Text
			}
			if h.By != "" {
				s.Opened += " from " + h.By
				if h.Kind == HandoffStart {
					s.Opened = "started by " + h.By
				}
			}
			if !h.At.IsZero() {
				s.Opened += " at " + h.At.UTC().Format("2006-01-02 15:04 UTC")
			}
		} else if g.N > 1 {
			s.Opened = "guidance (not recorded by the build that ran it)"
		}
		var seqs []int
		var cut, resumes int
		var last *Record
		var ends []string
		for _, m := range g.Moments {
			switch {
			case m.Record != nil:
				seqs, last = append(seqs, m.Seq), m.Record
			case m.Cut != nil:
				seqs, cut = append(seqs, m.Seq), cut+1
			case m.Handoff != nil && m.Handoff.Kind == HandoffResume:
				resumes++
			case m.Handoff != nil && m.Handoff.Kind == HandoffAbort:
				ends = append(ends, "aborted by you")
			case m.Handoff != nil && m.Handoff.Kind == HandoffAccept:
				ends = append(ends, "accepted by you")
			}
		}
		s.Attempts = ranges(seqs)
		if cut > 0 {
			s.Attempts += fmt.Sprintf(" (%d cut short)", cut)
		}
		if resumes > 0 {
			ends = append([]string{plural(resumes, "resume")}, ends...)
		}
		if i < len(segs)-1 {
			if last != nil && last.Decision == string(ActionEscalate) {
				ends = append(ends, fmt.Sprintf("escalated after attempt %d", last.Seq))
			}
			s.Ended = strings.Join(ends, ", ")
		}
		out = append(out, s)
	}
	return out
}

// ranges writes attempt numbers in order as runs: "1–3, 5"; "none".
func ranges(seqs []int) string {
	if len(seqs) == 0 {
		return "none"
	}
	var parts []string
	for i := 0; i < len(seqs); {
		j := i
		for j+1 < len(seqs) && seqs[j+1] == seqs[j]+1 {
			j++
		}
		p := strconv.Itoa(seqs[i])
		if j > i {
			p += "–" + strconv.Itoa(seqs[j])
		}
		parts = append(parts, p)
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
