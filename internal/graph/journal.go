package graph

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// JournalPath is where the changes to the state of the task graph of a name
// are appended between two whole saves of it ([Journal]).
func JournalPath(stateDir, name string) string {
	return filepath.Join(stateDir, "graphs", name+".jsonl")
}

// Journal appends the changes of a graph's state as they happen — a task's
// outcome, a task merged — one JSON line each to its journal, so a change
// costs the same whatever the number of tasks: a graph of 10,000 tasks does
// not rewrite its whole state after each one. [LoadState] replays the
// journal over the state file; [SaveState] starts it afresh. A line cut by a
// crash is ignored, with what follows it: the change it held is found again
// (an outcome from its task's run, a merge from git's ancestry).
type Journal struct {
	mu sync.Mutex
	f  *os.File
}

// journalLine is one change of a graph's state.
type journalLine struct {
	Task    string         `json:"task"`
	Outcome *tasks.Outcome `json:"outcome,omitempty"`
	Merged  bool           `json:"merged,omitempty"`
}

// OpenJournal opens the journal of the graph name in stateDir for appending.
func OpenJournal(stateDir, name string) (*Journal, error) {
	path := JournalPath(stateDir, name)
	if err := state.EnsureDir(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("open the journal of task graph %s: %w", name, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the journal of task graph %s: %w", name, err)
	}
	return &Journal{f: f}, nil
}

// Outcome appends the outcome of the task id.
func (j *Journal) Outcome(id string, o tasks.Outcome) error {
	return j.append(journalLine{Task: id, Outcome: &o})
}

// Merged appends that the task id is merged back.
func (j *Journal) Merged(id string) error { return j.append(journalLine{Task: id, Merged: true}) }

func (j *Journal) append(l journalLine) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("append to %s: %w", j.f.Name(), err)
	}
	return nil
}

// Close closes the journal.
func (j *Journal) Close() error { return j.f.Close() }

// replayJournal applies the journal at path to st; replayed says it held a
// change.
func replayJournal(path string, st *State) (replayed bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read task graph journal: %w", err)
	}
	defer f.Close()
	merged := make(map[string]bool, len(st.Merged))
	for _, id := range st.Merged {
		merged[id] = true
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var l journalLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Task == "" {
			break // cut by a crash: what follows is not trusted
		}
		replayed = true
		if l.Outcome != nil {
			st.Outcomes[l.Task] = *l.Outcome
		}
		if l.Merged && !merged[l.Task] {
			merged[l.Task] = true
			st.Merged = append(st.Merged, l.Task)
		}
	}
	return replayed, nil
}
