package state

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func historyState() *State {
	return &State{Version: StateVersion, Name: "build", RunID: "r1", Status: StatusRunning, Segment: 1}
}

// Each save appends only what is new to the run's history log — each
// record, cut attempt and hand-off once, whichever comes with it — and the
// log only grows (every earlier byte stays as it was); the state file holds
// the position, its size independent of the history's length. Cut attempts
// and hand-offs come in saves of their own and in different numbers, so
// that each list's entries are checked apart from the other's.
func TestHistoryIsAppendedNotRewritten(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	st := historyState()
	logPath := filepath.Join(s.RunDir("build", "r1"), HistoryFile)
	var before []byte
	var stateSizes []int
	for i := 1; i <= 50; i++ {
		st.Attempts = i
		st.History = append(st.History, Record{N: i, Seq: i, Segment: 1, Summary: strings.Repeat("x", 100)})
		want := []string{fmt.Sprintf("record %d", i)}
		if i%10 == 0 { // a cut attempt alone: 5 of them
			st.Interrupted = append(st.Interrupted, Interrupted{Seq: i, Iteration: i})
			want = append(want, fmt.Sprintf("cut %d", len(st.Interrupted)))
		}
		if i%10 == 5 || i == 3 || i == 4 { // a hand-off after a cut attempt, and two before the first: 7 of them
			st.Handoffs = append(st.Handoffs, Handoff{Kind: HandoffResume, After: i})
			want = append(want, fmt.Sprintf("handoff %d", len(st.Handoffs)))
		}
		if err := s.Save(st); err != nil {
			t.Fatal(err)
		}
		after, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(after, before) {
			t.Fatalf("save %d rewrote the history log", i)
		}
		var got []string
		for line := range strings.Lines(string(after[len(before):])) {
			e, ok := readEntry([]byte(line))
			if !ok {
				t.Fatalf("save %d appended %q", i, line)
			}
			got = append(got, fmt.Sprintf("%s %d", e.Kind, e.I))
		}
		if !slices.Equal(got, want) {
			t.Errorf("save %d appended %q, want %q", i, got, want)
		}
		before = after
		fi, err := os.Stat(s.StatePath("build"))
		if err != nil {
			t.Fatal(err)
		}
		stateSizes = append(stateSizes, int(fi.Size()))
	}
	if first, last := stateSizes[9], stateSizes[len(stateSizes)-1]; last > first+20 {
		t.Errorf("the state file grew with the history: %d bytes after 10 saves, %d after 50", first, last)
	}
	got, err := s.Load("build")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.History) != 50 || got.History[49].Seq != 50 || len(got.Interrupted) != 5 || got.Interrupted[4].Seq != 50 ||
		len(got.Handoffs) != 7 || got.Handoffs[6].After != 45 {
		t.Errorf("loaded %d records, %d cut, %d hand-offs; want 50, 5, 7", len(got.History), len(got.Interrupted), len(got.Handoffs))
	}
	if got.Logged != (Logged{History: 50, Interrupted: 5, Handoffs: 7}) {
		t.Errorf("logged = %+v", got.Logged)
	}
}

// A crash between appending to the log and replacing the state file leaves
// entries the state does not count: they are not loaded, and the next save
// appends its own entries of those indexes, which win.
func TestHistoryEntriesBeyondTheStateAreSuperseded(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	st := historyState()
	st.History = []Record{{N: 1, Seq: 1}}
	if err := s.Save(st); err != nil {
		t.Fatal(err)
	}
	// The crash: a record appended, the state file not replaced.
	orphan := *st
	orphan.History = append(append([]Record(nil), st.History...), Record{N: 2, Seq: 2, Summary: "orphan"})
	if _, err := appendHistory(s.historyPath(&orphan), &orphan, false); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("build")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.History) != 1 {
		t.Fatalf("loaded %d records, want the 1 the state counts", len(got.History))
	}
	got.History = append(got.History, Record{N: 2, Seq: 3, Summary: "the real one"})
	if err := s.Save(got); err != nil {
		t.Fatal(err)
	}
	again, err := s.Load("build")
	if err != nil {
		t.Fatal(err)
	}
	if len(again.History) != 2 || again.History[1].Summary != "the real one" {
		t.Errorf("history = %+v, want the later entry of index 2", again.History)
	}
}

// A log that lost entries (cut by hand, a torn line) loads what it holds up
// to its first gap, says how many are missing, and the run goes on.
func TestHistoryGap(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	st := historyState()
	for i := 1; i <= 3; i++ {
		st.History = append(st.History, Record{N: i, Seq: i})
		if err := s.Save(st); err != nil {
			t.Fatal(err)
		}
	}
	path := s.historyPath(st)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	// Entry 2 removed, entry 3 torn.
	if err := os.WriteFile(path, []byte(lines[0]+lines[2][:10]), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("build")
	var gap *HistoryGapError
	if !errors.As(err, &gap) || gap.Missing != 2 || got == nil || len(got.History) != 1 {
		t.Fatalf("Load = %v, %v; want 1 record and a gap of 2", got, err)
	}
	got.History = append(got.History, Record{N: 4, Seq: 4})
	if err := s.Save(got); err != nil {
		t.Fatal(err)
	}
	if again, err := s.Load("build"); err != nil || len(again.History) != 2 || again.History[1].Seq != 4 {
		t.Errorf("after the gap: %+v, %v", again, err)
	}
}

// A session's last save appends the final position: an earlier run is read
// back from its folder alone, after a new run replaced the state file.
func TestLoadRunFromItsFolder(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	st := historyState()
	st.History = []Record{{N: 1, Seq: 1, Decision: "proceed"}}
	st.Status, st.Reason = StatusSucceeded, "all required gates passed"
	if err := s.Save(st); err != nil {
		t.Fatal(err)
	}
	next := historyState()
	next.RunID = "r2"
	if err := s.Save(next); err != nil {
		t.Fatal(err)
	}
	old, err := LoadRun(s.RunDir("build", "r1"))
	if err != nil {
		t.Fatal(err)
	}
	if old.RunID != "r1" || old.Status != StatusSucceeded || len(old.History) != 1 || old.History[0].Decision != "proceed" {
		t.Errorf("LoadRun = %+v", old)
	}
}

// A run folder a run killed before its first state save left holds its events
// and no state: it is told apart from a folder whose state cannot be read.
func TestLoadRunStillborn(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	dir := s.RunDir("build", "r0")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte("{}\n"), FilePerm); err != nil {
		t.Fatal(err)
	}
	if !Stillborn(dir) || Stillborn(s.RunDir("build", "nosuch")) {
		t.Errorf("Stillborn: %v for the folder, %v for none", Stillborn(dir), Stillborn(s.RunDir("build", "nosuch")))
	}
	if _, err := LoadRun(dir); !errors.Is(err, ErrStillborn) {
		t.Errorf("LoadRun of a stillborn run folder: %v, want ErrStillborn", err)
	}
	st := historyState()
	st.RunID = "r0"
	st.History = []Record{{N: 1, Seq: 1, Decision: "proceed"}}
	if err := s.Save(st); err != nil {
		t.Fatal(err)
	}
	if Stillborn(dir) {
		t.Error("a run folder with its history is stillborn")
	}
}

// readEntry reads a log line's members in any order and refuses a line that
// is not a whole entry.
func TestReadEntry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line   string
		kind   string
		i      int
		data   string
		wantOK bool
	}{
		{`{"kind":"record","i":3,"data":{"n":3}}`, "record", 3, `{"n":3}`, true},
		{` { "data" : [1] , "i" : 12 , "kind" : "cut" } `, "cut", 12, `[1]`, true},
		{`{"kind":"state","data":{"status":"completed"}}`, "state", 0, `{"status":"completed"}`, true},
		{`{"kind":"record","i":2.5,"data":{}}`, "record", 0, `{}`, true}, // not an index: skipped by i < 1
		{`{"kind":"record","i":3,"data":{"n":3`, "", 0, "", false},       // torn by a crash
		{`{"kind":"record","i":3}`, "", 0, "", false},
		{`{"i":3,"data":{}}`, "", 0, "", false},
		{`["record",3]`, "", 0, "", false},
		{``, "", 0, "", false},
	}
	for _, tt := range tests {
		e, ok := readEntry([]byte(tt.line))
		if ok != tt.wantOK {
			t.Errorf("readEntry(%q) ok = %v, want %v", tt.line, ok, tt.wantOK)
			continue
		}
		if ok && (e.Kind != tt.kind || e.I != tt.i || string(e.Data) != tt.data) {
			t.Errorf("readEntry(%q) = %q, %d, %s; want %q, %d, %s", tt.line, e.Kind, e.I, e.Data, tt.kind, tt.i, tt.data)
		}
	}
}
