package state

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// moments writes a timeline compactly: r3/2 is the record of attempt 3 in
// segment 2 (iteration i), c3/2 a cut attempt, guidance@2/2 a hand-off after
// attempt 2 that belongs to segment 2; segments are split by " | ".
func moments(gs []HistorySegment) string {
	var segs []string
	for _, g := range gs {
		var parts []string
		if g.Opened != nil {
			parts = append(parts, fmt.Sprintf("(%s)", g.Opened.Kind))
		}
		for _, m := range g.Moments {
			switch {
			case m.Record != nil:
				parts = append(parts, fmt.Sprintf("r%d/%d.%d", m.Seq, m.Segment, m.Iteration()))
			case m.Cut != nil:
				parts = append(parts, fmt.Sprintf("c%d/%d.%d", m.Seq, m.Segment, m.Iteration()))
			default:
				parts = append(parts, fmt.Sprintf("%s@%d/%d", m.Handoff.Kind, m.Seq, m.Segment))
			}
		}
		segs = append(segs, fmt.Sprintf("%d: %s", g.N, strings.Join(parts, " ")))
	}
	return strings.Join(segs, " | ")
}

func TestTimeline(t *testing.T) {
	t.Parallel()
	at := func(s int) time.Time { return time.Date(2026, 3, 14, 10, 0, s, 0, time.UTC) }
	rec := func(seq, seg, n, s int) Record { return Record{Seq: seq, Segment: seg, N: n, StartedAt: at(s)} }
	cut := func(seq, seg, n, s int) Interrupted {
		return Interrupted{Seq: seq, Segment: seg, Iteration: n, StartedAt: at(s)}
	}
	hand := func(kind string, after, seg, s int) Handoff {
		return Handoff{Kind: kind, After: after, Segment: seg, At: at(s)}
	}
	tests := []struct {
		name string
		st   State
		want string
	}{
		{"empty", State{}, ""},
		{"one segment", State{History: []Record{rec(1, 1, 1, 1), rec(2, 1, 2, 2)}, Handoffs: []Handoff{hand(HandoffStart, 0, 1, 0)}},
			"1: (start) r1/1.1 r2/1.2"},
		{"guidance, Ctrl-C and accept",
			State{
				History:     []Record{rec(1, 1, 1, 1), rec(2, 1, 2, 2), rec(4, 2, 1, 40)},
				Interrupted: []Interrupted{cut(3, 2, 1, 20)},
				Handoffs: []Handoff{hand(HandoffStart, 0, 1, 0), hand(HandoffGuidance, 2, 2, 10), hand(HandoffResume, 3, 2, 30),
					hand(HandoffAccept, 4, 2, 50)},
			},
			"1: (start) r1/1.1 r2/1.2 | 2: (guidance) c3/2.1 resume@3/2 r4/2.1 accept@4/2"},
		{"a crash found by the next session comes before its resume",
			State{
				History:     []Record{rec(1, 1, 1, 1), rec(3, 1, 2, 40)},
				Interrupted: []Interrupted{cut(2, 1, 2, 5)},
				// The state saved before the crash counted one attempt.
				Handoffs: []Handoff{hand(HandoffStart, 0, 1, 0), hand(HandoffResume, 1, 1, 30)},
			},
			"1: (start) r1/1.1 c2/1.2 resume@1/1 r3/1.2"},
		{"guidance twice, the second segment without an attempt yet",
			State{
				History:  []Record{rec(1, 1, 1, 1), rec(2, 2, 1, 20)},
				Handoffs: []Handoff{hand(HandoffStart, 0, 1, 0), hand(HandoffGuidance, 1, 2, 10), hand(HandoffGuidance, 2, 3, 30)},
			},
			"1: (start) r1/1.1 | 2: (guidance) r2/2.1 | 3: (guidance)"},
		{"an older build: no numbers, no segments, no hand-offs",
			State{
				History:     []Record{rec(0, 0, 1, 1), rec(0, 0, 2, 3), rec(0, 0, 1, 10), rec(0, 0, 2, 12)},
				Interrupted: []Interrupted{cut(0, 0, 2, 2)},
			},
			"1: r1/1.1 c2/1.2 r3/1.2 | 2: r4/2.1 r5/2.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := moments(Segments(tt.st.Timeline())); got != tt.want {
				t.Errorf("timeline\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}
