package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// inflightFile marks an iteration in progress in the run folder. It is written
// when an iteration starts and removed once the loop has saved the state that
// records it, so a session that finds one knows the previous one died in the
// middle of that iteration: it counts what the cut run spent and starts the
// iteration again from its start checkpoint (steps are at-least-once).
const inflightFile = "inflight.json"

type inflight struct {
	Iteration  int                `json:"iteration"`
	Attempt    int                `json:"attempt,omitempty"` // the attempt it belongs to (guidance starts a new one)
	StartedAt  time.Time          `json:"started_at"`
	Checkpoint string             `json:"checkpoint,omitempty"` // the tree the iteration started from
	Agent      string             `json:"agent,omitempty"`      // the fallback agent it ran, "" for the configured one
	Carried    []loop.Interrupted `json:"carried,omitempty"`    // cut runs found but not yet recorded in a saved state
}

// inflightState is what the engine keeps about cut iterations within a session.
type inflightState struct {
	checked   bool               // the previous session's marker has been read
	carried   []loop.Interrupted // found, not yet in a saved state
	delivered bool               // carried has been handed to the loop
}

// TranscriptReader reads what an agent's saved transcript tells of its spend,
// for a run that was cut short. [PresetAgents] implements it.
type TranscriptReader interface {
	TranscriptUsage(agent, logPath string) evidence.Usage
}

func (l *Local) inflightPath() string { return filepath.Join(l.RunDir, inflightFile) }

// recover reads, once per session, the marker a dead session left: the cut
// iteration's time and spend become [loop.StepResult.Interrupted], and the work
// tree goes back to where that iteration started.
func (l *Local) recover(ctx context.Context, r loop.StepRequest) []loop.Interrupted {
	if l.cut.checked {
		return nil
	}
	l.cut.checked = true
	b, err := os.ReadFile(l.inflightPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var m inflight
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		l.warn("the marker of an iteration in progress (%s) is unreadable, so a run cut short may not be counted: %v", l.inflightPath(), err)
		return nil
	}
	// A marker of an iteration before the one asked for is stale: that
	// iteration was recorded, and the process died between saving the state
	// and removing the marker. Its work stays; nothing is counted twice.
	if r.Kind == loop.StepIteration && (m.Attempt < r.Attempt || m.Attempt == r.Attempt && m.Iteration < r.Iteration) {
		_ = os.Remove(l.inflightPath())
		return nil
	}
	cut := loop.Interrupted{Iteration: m.Iteration, StartedAt: m.StartedAt}
	dir := state.IterDir(l.RunDir, m.Iteration)
	if last := lastWrite(dir); last.After(m.StartedAt) {
		cut.Duration = loop.MillisOf(last.Sub(m.StartedAt))
	}
	if tr, ok := l.Agent.(TranscriptReader); ok {
		cut.Usage = tr.TranscriptUsage(m.Agent, filepath.Join(dir, "agent.log"))
	}
	l.cut.carried = append(m.Carried, cut)
	if l.Work != nil && m.Checkpoint != "" {
		if err := l.Work.Restore(ctx, m.Checkpoint); err != nil {
			l.warn("iteration %d was cut short and runs again, but its work tree could not be put back to where it started: %v", m.Iteration, err)
		}
	}
	l.cut.delivered = true
	return l.cut.carried
}

// markStart writes the marker of iteration n, carrying the cut runs that no
// saved state records yet.
func (l *Local) markStart(r loop.StepRequest, started time.Time, checkpoint string) {
	n := r.Iteration
	b, err := json.Marshal(inflight{Iteration: n, Attempt: r.Attempt, StartedAt: started, Checkpoint: checkpoint, Agent: r.Agent, Carried: l.cut.carried})
	if err == nil {
		err = state.WriteFileAtomic(l.inflightPath(), b, state.FilePerm)
	}
	if err != nil {
		l.warn("mark iteration %d in progress (a crash during it would not be counted): %v", n, err)
	}
}

// saved is told that the loop's state is on disk: what it records no longer
// needs the marker.
func (l *Local) saved() {
	if !l.cut.checked {
		return // the marker is the previous session's, not read yet
	}
	if l.cut.delivered {
		l.cut.carried, l.cut.delivered = nil, false
	}
	if len(l.cut.carried) == 0 {
		_ = os.Remove(l.inflightPath())
	}
}

// lastWrite is the latest modification time of the files in dir and its
// subfolders: as far as they tell, when the cut iteration last did something.
func lastWrite(dir string) time.Time {
	var last time.Time
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(last) {
			last = info.ModTime()
		}
		return nil
	})
	return last
}

// TranscriptUsage implements [TranscriptReader]: the saved agent.log is read
// with the agent's own parser. Tokens and cost stay unknown when it tells none.
func (a *PresetAgents) TranscriptUsage(agentName, logPath string) evidence.Usage {
	preset, ok := a.preset(agentName)
	if !ok {
		return evidence.Usage{}
	}
	f, err := os.Open(logPath)
	if err != nil {
		return evidence.Usage{}
	}
	defer f.Close()
	p, err := agent.NewParser(preset.Format)
	if err != nil {
		return evidence.Usage{}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		p.Line(sc.Bytes())
	}
	return p.Result().Usage
}
