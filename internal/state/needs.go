package state

import (
	"time"

	"github.com/agentloop/agentloop/internal/decision"
)

// NeedsYouNow is the record a run's events leave waiting, and when it was made:
// the last needs_you, unless the run went on after it (a new session, an
// answer taken) or was ended by a person (resume --accept, --abort).
func NeedsYouNow(events []Event) (decision.NeedsYou, time.Time, bool) {
	for i := len(events) - 1; i >= 0; i-- {
		switch d := events[i].Data.(type) {
		case NeedsYou:
			return d.NeedsYou, events[i].Time, true
		case RunStarted, GuidanceReceived, IterationStarted:
			// An iteration after it: the loop went on (a parked loop approved).
			return decision.NeedsYou{}, time.Time{}, false
		case RunFinished:
			if d.Status != StatusEscalated && d.Status != StatusAborted {
				return decision.NeedsYou{}, time.Time{}, false
			}
			if d.Status == StatusAborted && i > 0 && isNeeds(events[:i], decision.NeedsEscalated) {
				return decision.NeedsYou{}, time.Time{}, false // aborted by you, after the escalation
			}
		}
	}
	return decision.NeedsYou{}, time.Time{}, false
}

// isNeeds reports whether the last needs_you of events, before anything
// else ends it, is of kind.
func isNeeds(events []Event, kind string) bool {
	for i := len(events) - 1; i >= 0; i-- {
		switch d := events[i].Data.(type) {
		case NeedsYou:
			return d.Kind == kind
		case RunStarted, GuidanceReceived:
			return false
		}
	}
	return false
}
