package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// State is a task graph's persisted progress: each task's outcome and which
// branches were merged back. Running the same task file again resumes it.
type State struct {
	Version  int                      `json:"version"`
	File     string                   `json:"file"`
	Outcomes map[string]tasks.Outcome `json:"outcomes"`
	Merged   []string                 `json:"merged,omitempty"`
	// Repo is the repository the graph runs in ("": the state folder's
	// parent, for a state kept before it was recorded).
	Repo string `json:"repo,omitempty"`
	// Args are the flags the graph was last run with, as the runs of its
	// tasks record them: running the task file again, or resuming one of its
	// tasks, starts from them, the flags given then on top.
	Args []string `json:"args,omitempty"`
}

// NewState is the state of a graph of the task file that has not run yet.
func NewState(file string) State {
	return State{Version: 1, File: file, Outcomes: map[string]tasks.Outcome{}}
}

// CorruptStateError says that a graph's state file could not be read and was
// moved aside; the graph starts afresh (each task's own state is kept).
type CorruptStateError struct {
	Graph   string
	Err     error
	MovedTo string
}

func (e *CorruptStateError) Error() string {
	return fmt.Sprintf("the state of task graph %s is unreadable (%v); it was moved to %s and the graph starts afresh (each task's own state is kept)", e.Graph, e.Err, e.MovedTo)
}

func (e *CorruptStateError) Unwrap() error { return e.Err }

// LoadState reads the state of the graph name kept in stateDir, for the task
// file file: its state file, then the changes its journal appended since.
// found is false when the graph has not run yet. A state file that cannot be
// parsed is moved aside (never deleted), its journal with it: the state
// returned is then a new one and err a *[CorruptStateError] to warn of.
func LoadState(stateDir, name, file string, now time.Time) (st State, found bool, err error) {
	st, found, perr, err := readState(stateDir, name, file)
	if err != nil || perr == nil {
		return st, found, err
	}
	path := StatePath(stateDir, name)
	aside := path + ".corrupt-" + now.UTC().Format("20060102-150405")
	if mvErr := os.Rename(path, aside); mvErr != nil {
		return st, false, fmt.Errorf("the state of task graph %s is unreadable (%v) and could not be moved aside: %w", name, perr, mvErr)
	}
	_ = os.Rename(JournalPath(stateDir, name), aside+".jsonl")
	return NewState(file), false, &CorruptStateError{Graph: name, Err: perr, MovedTo: aside}
}

// ReadState reads the state of the graph name kept in stateDir as it
// stands, for a report: its journal replayed, nothing moved aside (a state
// file that cannot be parsed is an error); its Repo is set (the state
// folder's parent, for a state kept before it was recorded) and its File is
// absolute. found is false when there is no graph of that name.
func ReadState(stateDir, name string) (st State, found bool, err error) {
	st, found, perr, err := readState(stateDir, name, "")
	if err == nil && perr != nil {
		err = perr
	}
	if err != nil {
		return State{}, true, fmt.Errorf("read task graph %s: %w", name, err)
	}
	if !found {
		return st, false, nil
	}
	if st.Repo == "" {
		st.Repo = filepath.Dir(stateDir)
	}
	st.File = filePath(st.Repo, st.File)
	return st, true, nil
}

// RepoFile is the graph's task file as a person in its repository names it:
// relative to Repo when inside it.
func (st State) RepoFile() string { return relTo(st.Repo, st.File) }

// readState reads the state of the graph name and replays its journal; perr
// says the state file cannot be parsed (the state is then a new one), err
// that it cannot be read. It moves nothing.
func readState(stateDir, name, file string) (st State, found bool, perr, err error) {
	st = NewState(file)
	b, err := os.ReadFile(StatePath(stateDir, name))
	switch {
	case errors.Is(err, os.ErrNotExist):
		b = nil
	case err != nil:
		return st, false, nil, fmt.Errorf("read task graph state: %w", err)
	default:
		found = true
		if perr := json.Unmarshal(b, &st); perr != nil {
			return NewState(file), false, perr, nil
		}
		if st.Outcomes == nil {
			st.Outcomes = map[string]tasks.Outcome{}
		}
	}
	replayed, err := replayJournal(JournalPath(stateDir, name), &st)
	if err != nil {
		return st, found, nil, err
	}
	return st, found || replayed, nil, nil
}

// SaveState writes the whole state of the graph name in stateDir, atomically,
// and then starts its journal afresh (what it held is in the state now).
func SaveState(stateDir, name string, st State) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("save the state of task graph %s: %w", name, err)
	}
	path := StatePath(stateDir, name)
	if err := state.EnsureDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("save the state of task graph %s: %w", name, err)
	}
	if err := state.WriteFileAtomic(path, b, 0o600); err != nil {
		return fmt.Errorf("save the state of task graph %s: %w", name, err)
	}
	if err := os.Remove(JournalPath(stateDir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("save the state of task graph %s: start its journal afresh: %w", name, err)
	}
	return nil
}
