package engine

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// usageScreen is a [Screen] that shows the agent's usage as it grows.
type usageScreen interface {
	Usage(u evidence.Usage)
}

// live keeps the run's [state.LiveStatus] and its file ([Local.LivePath]).
type live struct {
	mu      sync.Mutex
	st      state.LiveStatus
	written time.Time
	pending bool // a write is due when the second since the last one ends
}

// liveAttempt starts an attempt's live status.
func (l *Local) liveAttempt(iteration, seq int) {
	l.live.mu.Lock()
	l.live.st.Iteration, l.live.st.Seq, l.live.st.Usage, l.live.st.Tool = iteration, seq, evidence.Usage{}, ""
	l.live.mu.Unlock()
}

// Live is what the loop is doing now, as its live file says it
// ([Local.LivePath]), kept whether or not it has one: a worker's step tells
// the server its iteration and phase with each heartbeat.
func (l *Local) Live() state.LiveStatus {
	l.live.mu.Lock()
	defer l.live.mu.Unlock()
	return l.live.st
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
