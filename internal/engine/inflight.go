package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// inflightFile marks an agent attempt in progress in the run folder. It is
// written when the attempt starts, touched every [beatEvery] while it runs, and
// removed once the loop has saved a state that records the attempt, so a
// session that finds one knows the previous one died during that attempt:
// [Local.Recover] keeps what it left and counts what it spent.
const inflightFile = "inflight.json"

// beatEvery is how often the marker of the attempt in progress is touched:
// the time a cut attempt's agent ran is read from it, to within this much.
const beatEvery = time.Second

type inflight struct {
	Seq        int       `json:"seq,omitempty"` // the attempt's number in the run (absent in markers of older builds)
	Iteration  int       `json:"iteration"`
	Attempt    int       `json:"attempt,omitempty"` // the decider's attempt it belongs to
	StartedAt  time.Time `json:"started_at"`
	Checkpoint string    `json:"checkpoint,omitempty"` // the tree the attempt started from
	Agent      string    `json:"agent,omitempty"`      // the fallback agent it ran, "" for the configured one
}

func (l *Local) inflightPath() string { return filepath.Join(l.RunDir, inflightFile) }

// Recover implements [loop.Env]: the marker a dead session left names the
// attempt it cut. Its time is how long its agent ran (until the marker's last
// heartbeat, or its folder's last write when later), its spend what its
// transcript tells; what it left in the work tree is kept under its cut ref,
// with its partial diff in its folder. The tree is left as it is: the loop
// keeps it, or undoes the attempt when the person asks ([state.State.UndoCut]). A marker of an attempt the state records (numbered last
// or lower: the process died between saving the state and removing it) is
// stale and removed. An attempt that died before its marker was written is
// found by its folder ([Local.unmarked]). With a shared spend, each cut
// attempt's reservation is settled with what its transcript tells.
func (l *Local) Recover(ctx context.Context, last int) ([]state.Interrupted, error) {
	cut, err := l.recoverCut(ctx, last)
	l.settleCut(cut)
	return cut, err
}

// recoverCut finds the attempts an earlier session cut ([Local.Recover]).
func (l *Local) recoverCut(ctx context.Context, last int) ([]state.Interrupted, error) {
	path := l.inflightPath()
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l.unmarked(last), nil
	}
	b, err := os.ReadFile(path)
	var m inflight
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		return nil, fmt.Errorf("the marker of an attempt in progress (%s) is unreadable: %w", path, err)
	}
	dir := state.IterDir(l.RunDir, attemptSeq(loop.StepRequest{Seq: m.Seq, Iteration: m.Iteration}))
	if m.Seq == 0 {
		m.Seq = last + 1 // a marker of an older build, numbered by its iteration
	}
	if m.Seq <= last {
		_ = os.Remove(path)
		return l.unmarked(last), nil
	}
	cut := state.Interrupted{Seq: m.Seq, Iteration: m.Iteration, StartedAt: m.StartedAt, Start: m.Checkpoint, Reason: "the process running it died (a crash or a kill)"}
	end := info.ModTime()
	if w := lastWrite(dir); w.After(end) {
		end = w
	}
	if end.After(m.StartedAt) {
		cut.Duration = state.MillisOf(end.Sub(m.StartedAt))
	}
	if tr, ok := l.Agent.(loop.TranscriptReader); ok {
		cut.Usage = tr.TranscriptUsage(m.Agent, filepath.Join(dir, "agent.log"))
	}
	if rr, ok := l.Reviewer.(loop.ReviewTranscriptReader); ok {
		cut.Reviewer = rr.ReviewUsage(dir)
	}
	if l.Work != nil && m.Checkpoint != "" {
		cut.Cut = l.keepCut(ctx, loop.StepRequest{Seq: m.Seq, Iteration: m.Iteration}, m.Checkpoint)
		if cut.Cut != "" && cut.Cut != m.Checkpoint {
			ref := l.ref(m.Seq, "cut")
			l.warn("what the cut attempt %d left in the work tree, and anything changed there since, is recorded in %s, its diff in its folder; bring it back with: git restore --source=%s --worktree -- .", m.Seq, ref, ref)
		}
	}
	return []state.Interrupted{cut}, nil
}

// unmarked is the attempt after the last one the state counts when its
// folder exists, holds no prompt and no marker names it: the process died
// after taking the attempt's number and before marking it in progress (while
// creating its folder or snapshotting the tree it starts from). Its agent never
// ran and the tree is as it was, so there is nothing to keep or undo; it is
// recorded as cut so that its number, folder and refs are never given to
// another attempt. The folder of an older build's iteration has its prompt.
func (l *Local) unmarked(last int) []state.Interrupted {
	seq := last + 1
	dir := state.IterDir(l.RunDir, seq)
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "prompt.md")); err == nil {
		return nil
	}
	return []state.Interrupted{{Seq: seq, StartedAt: info.ModTime(), Reason: "the process running it died as it started, before its agent ran (a crash or a kill)"}}
}

// markStart writes the marker of attempt seq and starts its heartbeat.
func (l *Local) markStart(r loop.StepRequest, seq int, started time.Time, checkpoint string) {
	m := inflight{Seq: seq, Iteration: r.Iteration, Attempt: r.Attempt, StartedAt: started, Checkpoint: checkpoint, Agent: r.Agent}
	b, err := json.Marshal(m)
	if err == nil {
		err = writeMarker(l.inflightPath(), b)
	}
	if err != nil {
		l.warn("mark attempt %d in progress (a crash during it would not be counted): %v", seq, err)
		return
	}
	l.marked = m
	l.stopBeat()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(beatEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				_ = os.Chtimes(l.inflightPath(), now, now)
			}
		}
	}()
	l.beat = func() { close(done); <-stopped }
}

// markAgent names in the marker of the attempt in progress the fallback agent
// it switched to (its agent.log is that agent's transcript from now on), for a
// later session to read the spend of the attempt if this one dies during it.
func (l *Local) markAgent(name string) {
	if l.beat == nil || l.marked.Agent == name {
		return // no attempt in progress, or it names that agent already
	}
	l.marked.Agent = name
	b, err := json.Marshal(l.marked)
	if err == nil {
		err = writeMarker(l.inflightPath(), b)
	}
	if err != nil {
		l.warn("mark attempt %d as run by %s (a crash during it would not count its spend): %v", l.marked.Seq, name, err)
	}
}

// writeMarker replaces the marker at path whole (a temporary file renamed
// into place, so a reader never sees half of one), without syncing it: it
// serves when agentloop dies and the system goes on (a kill, a crash), which
// keeps what was written; after a power loss the work tree the attempt left is
// not on the disk either, and a marker lost or cut then is a warning. Two
// fsyncs an attempt fewer.
func writeMarker(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Chmod(state.FilePerm); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// stopBeat stops the heartbeat of the attempt in progress; the marker stays
// until a saved state records the attempt.
func (l *Local) stopBeat() {
	if l.beat != nil {
		l.beat()
		l.beat = nil
	}
}

// saved is told that the loop's state is on disk: it records every attempt
// started so far (saves happen between attempts), so no marker is needed.
func (l *Local) saved(*state.State) {
	if l.beat != nil {
		return // an attempt in progress (a save from inside a step)
	}
	_ = os.Remove(l.inflightPath())
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

// AttemptInProgress reads the marker of the agent attempt a live session runs
// in the run folder runDir: its run-wide number and its iteration in the
// segment. ok is false when there is none (between attempts, or a marker of an
// older build without the number).
func AttemptInProgress(runDir string) (seq, iteration int, ok bool) {
	b, err := os.ReadFile(filepath.Join(runDir, inflightFile))
	if err != nil {
		return 0, 0, false
	}
	var m inflight
	if json.Unmarshal(b, &m) != nil || m.Seq == 0 {
		return 0, 0, false
	}
	return m.Seq, m.Iteration, true
}
