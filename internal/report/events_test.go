package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/state"
)

// ReadLastEvents decodes the last n lines only, in order, skipping the bad
// ones among them, and counts every line.
func TestReadLastEvents(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	for i := 1; i <= 7; i++ {
		if i == 6 {
			in.WriteString("not json\n")
			continue
		}
		fmt.Fprintf(&in, `{"v":2,"time":"2026-03-14T10:00:0%dZ","type":"iteration_started","iteration":%d,"data":{}}`+"\n", i, i)
	}
	in.WriteString("\n" + `{"time":"2026-03-14T10:00:0` + strings.Repeat("x", maxEventLine+10) + "\n")
	for _, tt := range []struct {
		n    int
		want string // the iterations of the events read
	}{{3, "7"}, {4, "5,7"}, {5, "4,5,7"}, {20, "1,2,3,4,5,7"}, {0, ""}} {
		evs, total, err := ReadLastEvents(strings.NewReader(in.String()), tt.n)
		var got []string
		for _, e := range evs {
			got = append(got, fmt.Sprint(e.Iteration))
		}
		if err != nil || total != 8 || strings.Join(got, ",") != tt.want {
			t.Errorf("last %d: events %v, total %d, %v; want %s and 8", tt.n, got, total, err, tt.want)
		}
	}
}

func TestReadEvents(t *testing.T) {
	t.Parallel()
	// Lines of schema 1 (no "v") and 2 mixed, as in a run resumed by a newer
	// version, with the damage a crash or a foreign writer leaves.
	in := `{"time":"2026-03-14T10:00:00Z","type":"run_started","data":{"procedure":"build"}}
not json
{"v":2,"time":"2026-03-14T10:00:01Z","type":"iteration_started","iteration":1,"data":{"max_iterations":3,"strategy":""}}
{"v":2,"time":"2026-03-14T10:00:01Z","type":"run_finished","data":{"iterations":"three"}}

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
	if got := strings.Join(types, ","); got != "run_started,iteration_started,run_finished" || skipped != 6 {
		t.Errorf("events %s, skipped %d; want run_started,iteration_started,run_finished and 6 skipped", got, skipped)
	}
	if d, ok := evs[0].Data.(state.RunStarted); !ok || d.Procedure != "build" {
		t.Errorf("schema-1 event read as %+v", evs[0])
	}
	if d, ok := evs[1].Data.(state.IterationStarted); !ok || evs[1].Iteration != 1 || d.MaxIterations != 3 {
		t.Errorf("schema-2 event read as %+v", evs[1])
	}
}

func TestLoadRunDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := &state.State{Name: "build"}
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
	f.Add([]byte(`{"v":2,"time":"2026-03-14T10:00:00Z","type":"iteration_finished","iteration":1,"data":{"action":"refine","triggers":["stuck"]}}` + "\n"))
	f.Add([]byte(`{"v":9,"type":"future","data":[1]}` + "\n"))
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
