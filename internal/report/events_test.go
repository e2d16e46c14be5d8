package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/loop"
)

func TestReadEvents(t *testing.T) {
	t.Parallel()
	in := `{"time":"2026-03-14T10:00:00Z","type":"run_started","data":{"procedure":"build"}}
not json
{"time":"2026-03-14T10:00:01Z","type":"iteration_started","iteration":1}

{"type":""}
{"time":"2026-03-14T10:00:02Z","type":"iteration_fin` + "\n" + `{"time":"2026-03-14T10:00:03Z","type":"` + strings.Repeat("x", maxEventLine+10) + `"}
{"time":"2026-03-14T10:00:04Z","type":"run_finished"}
{"time":"2026-03-14T10:00:05Z","type":"partial`
	evs, skipped, err := ReadEvents(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range evs {
		types = append(types, string(e.Type()))
	}
	if got := strings.Join(types, ","); got != "run_started,iteration_started,run_finished" || skipped != 5 {
		t.Errorf("events %s, skipped %d; want run_started,iteration_started,run_finished and 5 skipped", got, skipped)
	}
	if d, ok := evs[0].Data.(loop.RunStarted); evs[1].Iteration != 1 || !ok || d.Procedure != "build" {
		t.Errorf("fields lost: %+v", evs[:2])
	}
}

func TestLoadRunDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := &loop.State{Name: "build"}
	r, err := LoadRunDir(dir, st)
	if err != nil || r.State != st || r.Events != nil || r.Escalation != "" {
		t.Fatalf("empty run folder: %+v, %v", r, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(`{"type":"run_started"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "escalation.md"), []byte("# Escalation\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err = LoadRunDir(dir, st)
	if err != nil || len(r.Events) != 1 || r.Escalation != "# Escalation\n" {
		t.Fatalf("LoadRunDir: %+v, %v", r, err)
	}
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil || !strings.Contains(b.String(), "Escalation report") {
		t.Errorf("HTML of a loaded run: %v", err)
	}
}

func FuzzReadEvents(f *testing.F) {
	f.Add([]byte(`{"time":"2026-03-14T10:00:00Z","type":"run_started","data":{"a":[1,2]}}` + "\n"))
	f.Add([]byte("{}\n\n{\"type\":\"x\",\"iteration\":-1}\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, skipped, err := ReadEvents(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if len(evs)+skipped > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("%d events and %d skipped from %d lines", len(evs), skipped, bytes.Count(data, []byte("\n"))+1)
		}
		var b bytes.Buffer
		if err := HTML(&b, Run{Events: evs}); err != nil {
			t.Fatal(err)
		}
	})
}
