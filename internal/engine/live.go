package engine

import (
	"encoding/json"
	"os"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// LiveStatus is what a running loop is doing now.
type LiveStatus struct {
	Iteration int       `json:"iteration"`     // of its segment
	Seq       int       `json:"seq,omitempty"` // the agent attempt's number in the run
	Phase     string    `json:"phase"`         // agent, gates, review, …
	Since     time.Time `json:"since"`         // when the phase began
	// Usage is the current attempt's agent usage so far, as its CLI streams it.
	Usage evidence.Usage `json:"usage,omitzero"`
	// Tool is the tool call the agent started last and runs still, as its
	// CLI streams it ("Bash: go test ./..."; see [agent.Request.OnTool]).
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

// ReadLive reads a live status file ([Local.LivePath]).
func ReadLive(path string) (LiveStatus, error) {
	var ls LiveStatus
	b, err := os.ReadFile(path)
	if err != nil {
		return ls, err
	}
	return ls, json.Unmarshal(b, &ls)
}

// usageScreen is a [Screen] that shows the agent's usage as it grows.
type usageScreen interface {
	Usage(u evidence.Usage)
}

// live keeps the run's [LiveStatus] and its file.
type live struct {
	mu      sync.Mutex
	st      LiveStatus
	written time.Time
	pending bool // a write is due when the second since the last one ends
}

// liveAttempt starts an attempt's live status.
func (l *Local) liveAttempt(iteration, seq int) {
	l.live.mu.Lock()
	l.live.st.Iteration, l.live.st.Seq, l.live.st.Usage, l.live.st.Tool = iteration, seq, evidence.Usage{}, ""
	l.live.mu.Unlock()
}

// livePhase records a phase change.
func (l *Local) livePhase(p string) {
	l.live.mu.Lock()
	defer l.live.mu.Unlock()
	l.live.st.Phase, l.live.st.Since, l.live.st.Tool = p, l.Now(), ""
	l.live.st.Gate, l.live.st.GateSince, l.live.st.GateUsually = "", time.Time{}, 0
	l.writeLive(true)
}

// gateStarted is told the gate that starts now and how long it usually
// takes (see [loop.WithGateStart]).
func (l *Local) gateStarted(name string, usually time.Duration) {
	l.live.mu.Lock()
	defer l.live.mu.Unlock()
	l.live.st.Gate, l.live.st.GateSince, l.live.st.GateUsually = name, l.Now(), usually
	l.writeLive(true)
}

// tool is told the tool call the agent runs (see [loop.AgentRequest.OnTool]).
func (l *Local) tool(call string) {
	l.live.mu.Lock()
	defer l.live.mu.Unlock()
	l.live.st.Tool = call
	l.writeLive(false)
}

// usage is told the agent's usage so far (see [loop.AgentRequest.OnUsage]).
func (l *Local) usage(u evidence.Usage) {
	if s, ok := l.Screen.(usageScreen); ok {
		s.Usage(u)
	}
	l.live.mu.Lock()
	defer l.live.mu.Unlock()
	l.live.st.Usage = u
	l.writeLive(false)
}

// writeLive writes the live file: now, or when a second has passed since the
// last write. It is what a person watches, never what the run depends on:
// an error is ignored.
func (l *Local) writeLive(now bool) {
	if l.LivePath == "" || l.Now == nil {
		return
	}
	t := l.Now()
	if wait := time.Second - t.Sub(l.live.written); !now && wait > 0 {
		if !l.live.pending { // the last usage is written all the same, a little later
			l.live.pending = true
			time.AfterFunc(wait, func() {
				l.live.mu.Lock()
				defer l.live.mu.Unlock()
				if l.live.pending {
					l.writeLive(true)
				}
			})
		}
		return
	}
	l.live.pending = false
	l.live.written = t
	l.live.st.At = t
	b, err := json.Marshal(l.live.st)
	if err == nil {
		_ = state.WriteFileVolatile(l.LivePath, append(b, '\n'), state.FilePerm)
	}
}
