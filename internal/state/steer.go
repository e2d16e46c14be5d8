package state

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentloop/agentloop/internal/runname"
)

// What people queue for a run from another terminal (agentloop guide, stop)
// waits in the run's queue folder, state/NAME.queue/, one file per entry,
// written atomically: guidance as guide-TIME-RANDOM.json (its ID is the file's
// name without .json, unique and in the order given), a stop as stop.json.
// The running loop reads the queue at each iteration boundary and removes an
// entry only once the state that holds it is saved; the run's history names
// each guidance applied, so an entry a crash left behind is never applied
// twice. An entry names the run it was given to (its run ID, and for a stop the
// process it was addressed to): one meant for an earlier run, or a process that
// has ended, is dropped.

// queued is one entry of a run's queue.
type queued struct {
	RunID string `json:"run_id"`
	PID   int    `json:"pid,omitempty"` // a stop: the process asked to stop
	Steer
}

const stopFile = "stop.json"

// LivePath is the file in which the running loop of the run called name says
// what it is doing now (agentloop watch reads it); rewritten as it goes, so it
// lives beside the state file, not in the append-only run folder.
func (s Store) LivePath(name string) string { return filepath.Join(s.StateDir(), name+".live") }

// QueueDir is the folder of what is queued for the run called name.
func (s Store) QueueDir(name string) string { return filepath.Join(s.StateDir(), name+".queue") }

// QueueGuidance queues guidance for run runID of name and returns it with its ID.
func (s Store) QueueGuidance(name, runID string, g Steer) (Steer, error) {
	if err := runname.Check(name); err != nil {
		return g, err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	g.ID = fmt.Sprintf("guide-%s-%s", g.At.UTC().Format("20060102T150405.000000000"), hex.EncodeToString(b[:]))
	return g, s.enqueue(name, g.ID+".json", queued{RunID: runID, Steer: g})
}

// QueueStop asks process pid, which runs run runID of name, to end the run
// after its current iteration.
func (s Store) QueueStop(name, runID string, pid int, r StopRequest) error {
	if err := runname.Check(name); err != nil {
		return err
	}
	return s.enqueue(name, stopFile, queued{RunID: runID, PID: pid, Steer: Steer{ID: "stop", At: r.At, By: r.By}})
}

func (s Store) enqueue(name, file string, q queued) error {
	dir := s.QueueDir(name)
	if err := EnsureDir(dir); err != nil {
		return fmt.Errorf("queue for run %s: %w", name, err)
	}
	data, err := json.Marshal(q)
	if err != nil {
		return fmt.Errorf("queue for run %s: %w", name, err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, file), append(data, '\n'), FilePerm); err != nil {
		return fmt.Errorf("queue for run %s: %w", name, err)
	}
	return nil
}

// Queued reads what is queued for run runID of name, run by process pid (0:
// any process, to show what waits): guidance oldest first and a stop. Entries
// for another run or process are removed; an unreadable entry is moved aside
// to NAME.bad and named in the error, the others still returned.
func (s Store) Queued(name, runID string, pid int) (Steering, error) {
	dir := s.QueueDir(name)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Steering{}, nil
	}
	if err != nil {
		return Steering{}, fmt.Errorf("read the queue of run %s: %w", name, err)
	}
	var out Steering
	var errs []error
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".json") && (n == stopFile || strings.HasPrefix(n, "guide-")) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		path := filepath.Join(dir, n)
		var q queued
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // taken by another reader in the meantime
		}
		if err == nil {
			err = json.Unmarshal(data, &q)
		}
		if err != nil {
			_ = os.Rename(path, path+".bad")
			errs = append(errs, fmt.Errorf("%s is unreadable (%v): moved aside to %s.bad", path, err, n))
			continue
		}
		if q.RunID != runID || (n == stopFile && pid != 0 && q.PID != pid) {
			_ = os.Remove(path) // for a run or a process that is over
			continue
		}
		if n == stopFile {
			out.Stop = &StopRequest{At: q.At, By: q.By}
			continue
		}
		q.Steer.ID = strings.TrimSuffix(n, ".json")
		out.Guidance = append(out.Guidance, q.Steer)
	}
	return out, errors.Join(errs...)
}

// Dequeue removes the guidance ids from the queue of name, and its stop when
// stop is set.
func (s Store) Dequeue(name string, ids []string, stop bool) error {
	dir := s.QueueDir(name)
	var errs []error
	if stop {
		ids = append(ids[:len(ids):len(ids)], strings.TrimSuffix(stopFile, ".json"))
	}
	for _, id := range ids {
		if err := os.Remove(filepath.Join(dir, id+".json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
