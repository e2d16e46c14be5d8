package state

import (
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/decision"
)

var needsT0 = time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)

// TestCurrent pins when a run's last needs_you still waits.
func TestNeedsYouNow(t *testing.T) {
	t.Parallel()
	ev := func(d EventData) Event { return Event{Time: needsT0, Data: d} }
	esc := ev(NeedsYou{NeedsYou: decision.NeedsYou{Kind: decision.NeedsEscalated, Run: "a"}})
	bud := ev(NeedsYou{NeedsYou: decision.NeedsYou{Kind: decision.NeedsBudget, Run: "a"}})
	fin := func(s Status) Event { return ev(RunFinished{Status: s}) }
	sent := ev(NotificationSent{})
	tests := []struct {
		name   string
		events []Event
		want   string // the kind waiting, "" for none
	}{
		{"none", []Event{ev(RunStarted{}), fin(StatusSucceeded)}, ""},
		{"escalated", []Event{ev(RunStarted{}), ev(Escalated{}), esc, fin(StatusEscalated), sent}, "escalated"},
		{"escalation answered, resumed", []Event{esc, fin(StatusEscalated), ev(RunStarted{})}, ""},
		{"answered in the workflow", []Event{esc, ev(GuidanceReceived{})}, ""},
		{"aborted by you", []Event{esc, fin(StatusEscalated), fin(StatusAborted)}, ""},
		{"accepted by you", []Event{esc, fin(StatusEscalated), fin(StatusCompleted)}, ""},
		{"budget stop", []Event{ev(RunStarted{}), fin(StatusAborted), bud, sent}, "budget"},
		{"budget stop, resumed, aborted again otherwise", []Event{fin(StatusAborted), bud, ev(RunStarted{}), fin(StatusAborted)}, ""},
		{"parked by a shared cap's soft limit", []Event{ev(RunStarted{}), ev(IterationStarted{}), bud, sent}, "budget"},
		{"parked, approved, iterating again", []Event{ev(RunStarted{}), bud, ev(IterationStarted{})}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec, when, ok := NeedsYouNow(tt.events)
			if ok != (tt.want != "") || rec.Kind != tt.want || ok && !when.Equal(needsT0) {
				t.Errorf("NeedsYouNow() = %q %v %v, want %q", rec.Kind, when, ok, tt.want)
			}
		})
	}
}
