package state

import (
	"encoding/json"
	"os"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
)

// LiveStatus is what a running loop is doing now: what its live file
// ([Store.LivePath]) says.
type LiveStatus struct {
	Iteration int       `json:"iteration"`     // of its segment
	Seq       int       `json:"seq,omitempty"` // the agent attempt's number in the run
	Phase     string    `json:"phase"`         // agent, gates, review, …
	Since     time.Time `json:"since"`         // when the phase began
	// Usage is the current attempt's agent usage so far, as its CLI streams it.
	Usage evidence.Usage `json:"usage,omitzero"`
	// Tool is the tool call the agent started last and runs still, as its
	// CLI streams it ("Bash: go test ./..."; see agent.Request.OnTool).
	Tool string `json:"tool,omitempty"`
	// Gate is the gate running now (in the gates phase), since GateSince;
	// GateUsually is how long it took when it last ran in this run (0: not
	// known), so that one running far past it shows ([LiveStatus.GateOverdue]).
	Gate        string        `json:"gate,omitempty"`
	GateSince   time.Time     `json:"gate_since,omitzero"`
	GateUsually time.Duration `json:"gate_usually_ns,omitempty"`
	At          time.Time     `json:"at"` // when this was written
}

// OverdueFactor is how many times its usual time a gate runs before it is
// shown as running long ([LiveStatus.GateOverdue]).
const OverdueFactor = 3

// GateOverdue reports whether the gate running at now has run more than
// [OverdueFactor] times as long as it took last time: a hang a person may
// want to look at before its timeout ends it.
func (ls LiveStatus) GateOverdue(now time.Time) bool {
	return ls.Gate != "" && ls.GateUsually > 0 && now.Sub(ls.GateSince) > OverdueFactor*ls.GateUsually
}

// ReadLive reads a live status file ([Store.LivePath]).
func ReadLive(path string) (LiveStatus, error) {
	var ls LiveStatus
	b, err := os.ReadFile(path)
	if err != nil {
		return ls, err
	}
	return ls, json.Unmarshal(b, &ls)
}
