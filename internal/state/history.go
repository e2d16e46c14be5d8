package state

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentloop/agentloop/internal/jsonscan"
)

// A run's history — its iteration records, its cut attempts and its
// hand-offs — grows with the run, so the store keeps it out of the state file:
// each save appends what is new to the run folder's history.jsonl (one entry a
// line, synced before the state file is replaced), and the state file holds
// the run's position with [Logged] counting what the log holds. A save
// writes bytes in proportion to what happened since the last one, never the
// whole history again, and nothing in the log is ever written over.
//
// An entry carries its kind and its index in its list (1-based). A crash
// between appending and replacing the state file leaves entries the state does
// not count: the next save appends those indexes again, and on load the last
// entry of each index wins, up to the count the state file gives. A session's
// last save also appends the position itself (kind "state"), so a run's folder
// tells its final state after a new run of the same name replaced the file.

// Entry kinds of history.jsonl.
const (
	entryRecord  = "record"
	entryCut     = "cut"
	entryHandoff = "handoff"
	entryState   = "state"
)

type entry struct {
	Kind string          `json:"kind"`
	I    int             `json:"i,omitempty"`
	Data json.RawMessage `json:"data"`
}

// readEntry reads a line of the log as [appendHistory] writes it: its
// members found in one pass, the data left raw (valid JSON or not) for the
// caller, which decodes only the entries it keeps. Decoding the line whole
// and then its data read every entry's data twice, and a report of a long
// run spent most of its time there. ok is false for a line that is not such
// an object (one a crash cut short).
func readEntry(line []byte) (e entry, ok bool) {
	ok = jsonscan.Fields(line, func(key, val []byte) bool {
		switch string(key) {
		case "kind":
			e.Kind = jsonscan.Str(val)
		case "i":
			n, isNum := jsonscan.Num(val)
			if isNum && n == float64(int(n)) {
				e.I = int(n)
			}
		case "data":
			e.Data = val
		}
		return true
	})
	return e, ok && e.Kind != "" && e.Data != nil
}

// maxEntryLine bounds a history line; a longer one is corrupt.
const maxEntryLine = 16 << 20

// appendHistory appends st's entries the log lacks, and the position when
// final, to the run's log, synced. It returns the counts the log then holds.
func appendHistory(path string, st *State, final bool) (Logged, error) {
	next, synced, err := writeHistory(path, st, final)
	if err != nil {
		return st.Logged, err
	}
	if err := synced(); err != nil {
		return st.Logged, err
	}
	return next, nil
}

// writeHistory appends st's entries the log lacks, and the position when
// final, to the run's log, and returns the counts the log holds once synced
// and the function that syncs it (and closes the file): the caller runs it,
// its result says whether the entries are durable.
func writeHistory(path string, st *State, final bool) (Logged, func() error, error) {
	logged := st.Logged
	none := func() error { return nil }
	var buf bytes.Buffer
	add := func(kind string, i int, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encode a %s entry: %w", kind, err)
		}
		line, err := json.Marshal(entry{Kind: kind, I: i, Data: b})
		if err != nil {
			return fmt.Errorf("encode a %s entry: %w", kind, err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
		return nil
	}
	var err error
	for i := min(logged.History, len(st.History)); i < len(st.History) && err == nil; i++ {
		err = add(entryRecord, i+1, st.History[i])
	}
	for i := min(logged.Interrupted, len(st.Interrupted)); i < len(st.Interrupted) && err == nil; i++ {
		err = add(entryCut, i+1, st.Interrupted[i])
	}
	for i := min(logged.Handoffs, len(st.Handoffs)); i < len(st.Handoffs) && err == nil; i++ {
		err = add(entryHandoff, i+1, st.Handoffs[i])
	}
	next := Logged{History: len(st.History), Interrupted: len(st.Interrupted), Handoffs: len(st.Handoffs)}
	if err == nil && final {
		pos := position(st, next)
		err = add(entryState, 0, pos)
	}
	if err != nil {
		return logged, nil, err
	}
	if buf.Len() == 0 {
		return next, none, nil
	}
	if err := EnsureDir(filepath.Dir(path)); err != nil {
		return logged, nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, FilePerm)
	if err != nil {
		return logged, nil, fmt.Errorf("append to the run's history: %w", err)
	}
	if err := endTornLine(f); err != nil {
		_ = f.Close()
		return logged, nil, fmt.Errorf("append to the run's history %s: %w", path, err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		_ = f.Close()
		return logged, nil, fmt.Errorf("append to the run's history %s: %w", path, err)
	}
	return next, func() error {
		werr := f.Sync()
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("append to the run's history %s: %w", path, werr)
		}
		return nil
	}, nil
}

// endTornLine ends a last line a crash left half-written, so the next entry
// starts on a line of its own (the torn one is skipped on load).
func endTornLine(f *os.File) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	r, err := os.Open(f.Name())
	if err != nil {
		return err
	}
	defer r.Close()
	last := make([]byte, 1)
	if _, err := r.ReadAt(last, fi.Size()-1); err != nil {
		return err
	}
	if last[0] != '\n' {
		_, err = f.Write([]byte{'\n'})
	}
	return err
}

// position is st as the state file holds it: the history lists left out,
// logged counting what the log holds of them.
func position(st *State, logged Logged) State {
	pos := *st
	pos.History, pos.Interrupted, pos.Handoffs = nil, nil, nil
	pos.Logged = logged
	return pos
}

// HistoryGapError says a run's history log holds less than its state file
// counts: the entries it has are loaded, the others are missing.
type HistoryGapError struct {
	Path    string
	Missing int
}

func (e *HistoryGapError) Error() string {
	return fmt.Sprintf("the run's history %s lacks %d entries its state counts (removed or cut short by hand?): the run goes on with what is there", e.Path, e.Missing)
}

// readHistory fills st's history lists from the log at path, up to the counts
// of st.Logged, and sets those counts to what it found. A missing log of a
// state that counts nothing is not an error; entries beyond the counts (left
// by a crash before the state was saved) and unreadable lines are skipped.
func readHistory(path string, st *State) error {
	want := st.Logged
	if want == (Logged{}) {
		return nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		st.Logged = Logged{}
		return &HistoryGapError{Path: path, Missing: want.History + want.Interrupted + want.Handoffs}
	}
	if err != nil {
		return fmt.Errorf("read the run's history: %w", err)
	}
	defer f.Close()
	records := make([]Record, want.History)
	cuts := make([]Interrupted, want.Interrupted)
	handoffs := make([]Handoff, want.Handoffs)
	seen := [3][]bool{make([]bool, want.History), make([]bool, want.Interrupted), make([]bool, want.Handoffs)}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxEntryLine)
	for sc.Scan() {
		e, ok := readEntry(sc.Bytes())
		if !ok || e.I < 1 {
			continue
		}
		i := e.I - 1
		var err error
		switch {
		case e.Kind == entryRecord && i < len(records):
			var r Record
			if err = json.Unmarshal(e.Data, &r); err == nil {
				records[i], seen[0][i] = r, true
			}
		case e.Kind == entryCut && i < len(cuts):
			var c Interrupted
			if err = json.Unmarshal(e.Data, &c); err == nil {
				cuts[i], seen[1][i] = c, true
			}
		case e.Kind == entryHandoff && i < len(handoffs):
			var h Handoff
			if err = json.Unmarshal(e.Data, &h); err == nil {
				handoffs[i], seen[2][i] = h, true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read the run's history %s: %w", path, err)
	}
	// The lists are whole up to their first gap.
	missing := 0
	whole := func(s []bool) int {
		for i, ok := range s {
			if !ok {
				missing += len(s) - i
				return i
			}
		}
		return len(s)
	}
	nr, nc, nh := whole(seen[0]), whole(seen[1]), whole(seen[2])
	st.History, st.Interrupted, st.Handoffs = nilIfEmpty(records[:nr]), nilIfEmpty(cuts[:nc]), nilIfEmpty(handoffs[:nh])
	st.Logged = Logged{History: nr, Interrupted: nc, Handoffs: nh}
	if missing > 0 {
		return &HistoryGapError{Path: path, Missing: missing}
	}
	return nil
}

// ErrStillborn says that a run folder holds no state of its run: the run was
// stopped (a kill) before it saved its first one, and its folder keeps what
// it wrote before (its events). It is kept, as every run folder is, until
// agentloop clean removes it.
var ErrStillborn = errors.New("its run was stopped before it saved its first state")

// Stillborn reports whether the run folder runDir is there and holds no state
// of its run: neither a history log nor a state copy ([ErrStillborn]).
func Stillborn(runDir string) bool {
	if fi, err := os.Stat(runDir); err != nil || !fi.IsDir() {
		return false
	}
	for _, f := range []string{HistoryFile, "state.json"} {
		if _, err := os.Lstat(filepath.Join(runDir, f)); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	return true
}

// LoadRun reads the final state of an earlier run from its run folder: the
// position its last session appended to the history log, with the history.
// It is how a run is reported after a new run of the same name replaced its
// state file. A run folder of an older build has a state.json copy instead;
// one that has neither is [ErrStillborn].
func LoadRun(runDir string) (*State, error) {
	if Stillborn(runDir) {
		return nil, fmt.Errorf("run folder %s holds no state: %w", runDir, ErrStillborn)
	}
	path := filepath.Join(runDir, HistoryFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return loadRunCopy(runDir)
	}
	if err != nil {
		return nil, fmt.Errorf("read the run's history: %w", err)
	}
	var last []byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxEntryLine)
	for sc.Scan() {
		if e, ok := readEntry(sc.Bytes()); ok && e.Kind == entryState {
			last = append(last[:0], e.Data...)
		}
	}
	f.Close()
	if last == nil {
		return loadRunCopy(runDir)
	}
	var st State
	if err := json.Unmarshal(last, &st); err != nil {
		return nil, fmt.Errorf("read the run's final state in %s: %w", path, err)
	}
	err = readHistory(path, &st)
	if _, gap := errors.AsType[*HistoryGapError](err); err != nil && !gap {
		return nil, err
	}
	return &st, nil
}

func loadRunCopy(runDir string) (*State, error) {
	path := filepath.Join(runDir, "state.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("no final state in %s: %w", runDir, err)
	}
	data, err = current(path, data)
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, jsonError(data, err)
	}
	return &st, nil
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}
