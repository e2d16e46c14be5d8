package state

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/budget"
)

func TestEvents(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "runs", "demo", "r1", "events.jsonl")
	ev := func(typ string, n int) Event {
		return Event{Iteration: n, Data: Warning{Message: typ}}
	}
	log, err := OpenEvents(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := log.Append(ev("iteration", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if err := log.Append(ev("", 0)); err == nil {
		t.Error("Append after Close: no error")
	}
	if fi, _ := os.Stat(path); !permIs(fi, 0o600) {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	// A crash leaves a torn last line.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"type":"gat`)
	_ = f.Close()

	got, skipped := read(t, path)
	if len(got) != 3 || skipped != 1 {
		t.Fatalf("read %d events, skipped %d; want 3 and 1", len(got), skipped)
	}
	// Reopening ends the torn line, so the next event is intact.
	log, err = OpenEvents(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := log.Append(ev("done", 9)); err != nil {
		t.Fatal(err)
	}
	_ = log.Close()
	evs, err := ReadEvents(path)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, raw := range evs {
		var e Event
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		types = append(types, e.Data.(Warning).Message)
	}
	if diff := cmp.Diff([]string{"iteration", "iteration", "iteration", "done"}, types); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	// A log that ends cleanly is appended to as it is: no blank line.
	before, _ := os.ReadFile(path)
	log, err = OpenEvents(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := log.Append(ev("again", 10)); err != nil {
		t.Fatal(err)
	}
	_ = log.Close()
	after, _ := os.ReadFile(path)
	if rest, ok := strings.CutPrefix(string(after), string(before)); !ok || strings.Count(rest, "\n") != 1 || strings.HasPrefix(rest, "\n") {
		t.Errorf("reopening a clean log appended %q, want one event line", rest)
	}
}

func read(t *testing.T, path string) ([]json.RawMessage, int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	evs, skipped, err := ScanEvents(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return evs, skipped
}

// maxEventLine bounds one event line read back in the tests.
const maxEventLine = 16 << 20

// ReadEvents returns the events in the file at path, skipping lines that are not
// JSON (a torn last line after a crash); the reader agentloop uses is
// report.ReadEvents, this one checks what the writer wrote.
func ReadEvents(path string) ([]json.RawMessage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	defer f.Close()
	evs, _, err := ScanEvents(f)
	return evs, err
}

// ScanEvents reads JSON lines from r, returning the events and how many lines it
// skipped because they were not valid JSON. Blank lines are ignored.
func ScanEvents(r io.Reader) (evs []json.RawMessage, skipped int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxEventLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			skipped++
			continue
		}
		evs = append(evs, json.RawMessage(bytes.Clone(line)))
	}
	if err := sc.Err(); err != nil {
		return evs, skipped, fmt.Errorf("read events: %w", err)
	}
	return evs, skipped, nil
}

// Finished counts the "iteration finished" events a log holds when opened, so
// that a session can write those a crash lost.
func TestEventLogCountsFinishedIterations(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	log, err := OpenEvents(path)
	if err != nil {
		t.Fatal(err)
	}
	if log.Finished() != 0 {
		t.Errorf("a new log counts %d finished iterations", log.Finished())
	}
	rec := Record{N: 1, Duration: 1500, Succeeded: true, Decision: "continue"}
	for _, ev := range []Event{
		{Data: RunStarted{}},
		{Iteration: 1, Data: IterationStarted{}},
		RecoveredFinished(rec, budget.Limits{MaxIterations: 3}),
		{Iteration: 2, Data: IterationStarted{}},
	} {
		if err := log.Append(ev); err != nil {
			t.Fatal(err)
		}
	}
	log.Close()
	again, err := OpenEvents(path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.Finished() != 1 {
		t.Errorf("Finished = %d, want 1", again.Finished())
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"recovered":true`) || !strings.Contains(string(b), `"duration_ms":1500`) {
		t.Errorf("the rebuilt event does not carry the record: %s", b)
	}
}
