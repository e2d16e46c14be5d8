package report

import (
	"time"

	"github.com/agentloop/agentloop/internal/decision"
)

// View is what `agentloop watch` shows of a state folder at one moment: every
// run and graph task, with what a running one is doing now, and what waits
// for a person.
type View struct {
	At       time.Time
	Runs     []WatchRow
	NeedsYou []decision.Waiting
}
