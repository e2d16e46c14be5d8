package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/runname"
)

// DefaultRoot is the store's directory when [Store.Root] is empty.
const DefaultRoot = ".agentloop"

// ErrNotFound is returned by [Store.Load] when the run has no state file.
var ErrNotFound = errors.New("state: no saved state")

// CorruptError is returned by [Store.Load] when the state file cannot be used: it
// has been moved aside to MovedTo and the caller should warn and start fresh.
type CorruptError struct {
	Path    string
	MovedTo string
	Err     error
}

func (e *CorruptError) Error() string {
	if e.MovedTo == "" {
		return fmt.Sprintf("state file %s is unusable: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("state file %s is unusable (%v); moved it to %s and starting fresh", e.Path, e.Err, e.MovedTo)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Store is the on-disk store of runs under Root.
type Store struct {
	Root string
}

func (s Store) root() string {
	if s.Root == "" {
		return DefaultRoot
	}
	return s.Root
}

// ignoreFile keeps the store out of git: an agent that runs `git add -A` must
// not commit states, prompts and logs (they can hold secrets).
const ignoreFile = ".gitignore"

// EnsureRoot creates the store's directory (mode 0700) with a .gitignore that
// ignores everything in it, and adds the .gitignore to a directory made before.
func (s Store) EnsureRoot() error {
	if err := EnsureDir(s.root()); err != nil {
		return err
	}
	p := filepath.Join(s.root(), ignoreFile)
	if _, err := os.Lstat(p); err == nil {
		return nil
	}
	if err := WriteFileAtomic(p, []byte("# agentloop's state and logs: never committed.\n*\n"), FilePerm); err != nil {
		return fmt.Errorf("keep %s out of git: %w", s.root(), err)
	}
	return nil
}

// StateDir is the directory of the state and lock files.
func (s Store) StateDir() string { return filepath.Join(s.root(), "state") }

// StatePath is the state file of the run called name.
func (s Store) StatePath(name string) string { return filepath.Join(s.StateDir(), name+".json") }

// RunDir is the artifact directory of one run; name and runID must pass
// [runname.Check]. Create it with [EnsureDir].
func (s Store) RunDir(name, runID string) string {
	return filepath.Join(s.root(), "runs", name, runID)
}

// MakeRunDir creates the run folder of one run (see [Store.RunDir]) and the
// store's directory with its .gitignore when they are missing.
func (s Store) MakeRunDir(name, runID string) (string, error) {
	if err := s.EnsureRoot(); err != nil {
		return "", err
	}
	dir := s.RunDir(name, runID)
	return dir, EnsureDir(dir)
}

// IterDir is the artifact directory of iteration n: iter-001 … iter-999, then
// wider (iter-1000). Create it with [EnsureDir].
func (s Store) IterDir(name, runID string, n int) string {
	return IterDir(s.RunDir(name, runID), n)
}

// IterDir is the folder of iteration n inside a run folder: iter-001, iter-002, …
func IterDir(runDir string, n int) string {
	return filepath.Join(runDir, fmt.Sprintf("iter-%03d", n))
}

// Load reads the state of the run called name, upgraded to the current schema
// when an older agentloop wrote it, with its history from the run folder's log.
// A missing file is [ErrNotFound]; one written by a newer agentloop is a
// [*NewerError] and stays in place; an unparseable or invalid one is moved
// aside and reported as a [*CorruptError]. A history log that lacks entries the
// state counts is a [*HistoryGapError] returned with the state: the run can go
// on with what is there.
func (s Store) Load(name string) (*State, error) {
	if err := runname.Check(name); err != nil {
		return nil, err
	}
	path := s.StatePath(name)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load state: %w", err)
	}
	st, perr := parse(path, name, data)
	if perr == nil {
		// A history log with less than the state counts is told, not fatal:
		// the run goes on with what it has.
		return st, s.LoadHistory(st)
	}
	if _, newer := errors.AsType[*NewerError](perr); newer {
		return nil, perr
	}
	moved, err := moveAside(path)
	if err != nil {
		return nil, fmt.Errorf("move aside unusable state file %s (%v): %w; move or remove it by hand", path, perr, err)
	}
	return nil, &CorruptError{Path: path, MovedTo: moved, Err: perr}
}

// parse upgrades, decodes and validates a state file's content.
func parse(path, name string, data []byte) (*State, error) {
	data, err := current(path, data)
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, jsonError(data, err)
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("invalid state: %w", err)
	}
	if st.Name != name {
		return nil, fmt.Errorf("invalid state: name %q does not match the file name %q", st.Name, name)
	}
	// The run id becomes a path (runs/NAME/RUN): one read from a file is
	// checked like a name, so that it cannot point outside the store.
	if st.RunID != "" {
		if err := runname.Check(st.RunID); err != nil {
			return nil, fmt.Errorf("invalid state: run_id: %w", err)
		}
	}
	return &st, nil
}

// jsonError adds the line and column to a JSON decoding error.
func jsonError(data []byte, err error) error {
	var off int64 = -1
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		off = se.Offset
		if se.Error() == "unexpected end of JSON input" {
			off = int64(len(data)) + 1 // point past the last byte
		}
	} else if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		off = te.Offset
	}
	if off < 0 {
		return fmt.Errorf("parse state: %w", err)
	}
	// Offset counts the bytes read, the offending one included.
	pos := int(min(max(off-1, 0), int64(len(data))))
	line := 1 + bytes.Count(data[:pos], []byte("\n"))
	col := pos - bytes.LastIndexByte(data[:pos], '\n')
	return fmt.Errorf("parse state: line %d:%d: %w", line, col, err)
}

// moveAside renames path to path.corrupt-<UTC timestamp>, never overwriting.
func moveAside(path string) (string, error) {
	stamp := time.Now().UTC().Format("20060102T150405Z")
	for i := 0; i < 100; i++ {
		to := path + ".corrupt-" + stamp
		if i > 0 {
			to += fmt.Sprintf("-%d", i)
		}
		if _, err := os.Lstat(to); err == nil {
			continue
		}
		if err := os.Rename(path, to); err != nil {
			return "", err
		}
		return to, nil
	}
	return "", errors.New("too many corrupt copies")
}

// Save writes the state atomically, 0600, after appending its new history to
// the run folder's log (synced); see positionWriter for what is made durable
// when. The state must be valid.
func (s Store) Save(st *State) error {
	if st == nil {
		return errors.New("save state: nil state")
	}
	if err := runname.Check(st.Name); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	if err := st.Validate(); err != nil {
		return fmt.Errorf("save state %s: %w", st.Name, err)
	}
	if err := s.EnsureRoot(); err != nil {
		return fmt.Errorf("save state %s: %w", st.Name, err)
	}
	// The history first: a state file never counts entries its log lacks.
	// The log's sync runs while the state file's data is written and synced
	// (two flushes of the disk at once, not one after the other), and the
	// state file is replaced only once both are done.
	logged := st.Logged
	pos := st
	w := positionWriter(st.Status.Ended())
	if st.RunID != "" {
		var err error
		logged, w.Meanwhile, err = writeHistory(s.historyPath(st), st, st.Status.Ended())
		if err != nil {
			return fmt.Errorf("save state %s: %w", st.Name, err)
		}
		p := position(st, logged)
		pos = &p
	}
	data, err := json.MarshalIndent(pos, "", "  ")
	if err == nil {
		err = EnsureDir(s.StateDir())
	}
	if err != nil {
		if w.Meanwhile != nil {
			_ = w.Meanwhile() // the log's file is closed; its entries are appended again by the next save
		}
		return fmt.Errorf("save state %s: %w", st.Name, err)
	}
	if err := w.WriteFile(s.StatePath(st.Name), append(data, '\n'), FilePerm); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	st.Logged = logged
	return nil
}

// positionWriter is how [Store.Save] replaces the state file: its data is
// synced before the rename, always, so that the file is the old position or
// the new one, whole. The rename itself is made durable (the directory
// synced) only by a session's last save: while a run goes on, the iteration's
// durable record is the history's synced entry, and a power loss that undoes
// the last rename leaves the previous position with an entry it does not
// count yet — the state a kill between the two writes leaves, which a resume
// takes up by running that iteration again. An iteration so costs two syncs:
// the history's entry and the state file's data.
func positionWriter(final bool) AtomicWriter {
	if final {
		return AtomicWriter{}
	}
	return AtomicWriter{SyncDir: func(string) error { return nil }}
}

func (s Store) historyPath(st *State) string {
	return filepath.Join(s.RunDir(st.Name, st.RunID), HistoryFile)
}

// LoadHistory fills st's history (records, cut attempts, hand-offs) from its
// run folder's log; [Store.List] leaves it out. A state whose lists are
// already there (one of an older schema) is left as it is. See [Store.Load]
// for a [*HistoryGapError].
func (s Store) LoadHistory(st *State) error {
	if st.RunID == "" || len(st.History)+len(st.Interrupted)+len(st.Handoffs) > 0 {
		return nil
	}
	return readHistory(s.historyPath(st), st)
}

// List returns the state of every run, sorted by name, for `status`: each
// run's position, without its history ([Store.LoadHistory] reads it). It does
// not move anything: files it cannot use are skipped and named in the error
// (one [*CorruptError] or [*NewerError] each), next to the states it could read.
func (s Store) List() ([]*State, error) {
	entries, err := os.ReadDir(s.StateDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var states []*State
	var errs []error
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !e.Type().IsRegular() || runname.Check(name) != nil {
			continue
		}
		path := filepath.Join(s.StateDir(), e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, fmt.Errorf("list runs: %w", err))
			continue
		}
		st, err := parse(path, name, data)
		if _, newer := errors.AsType[*NewerError](err); newer {
			errs = append(errs, err)
			continue
		}
		if err != nil {
			errs = append(errs, &CorruptError{Path: path, Err: err})
			continue
		}
		states = append(states, st)
	}
	sort.Slice(states, func(i, j int) bool { return states[i].Name < states[j].Name })
	return states, errors.Join(errs...)
}
