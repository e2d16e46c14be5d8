package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/state"
)

// TestRunOfPreviousVersion reports on a run recorded by the previous version
// (testdata/v1-run: an escalated run of the fake agent resumed with guidance,
// whose events.jsonl has schema-1 lines, without "v"): every event reads into
// its type, and every format renders.
func TestRunOfPreviousVersion(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "v1-run")
	b, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st state.State
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	evs, skipped, err := ReadEvents(f)
	if err != nil || skipped != 0 || len(evs) != 19 {
		t.Fatalf("ReadEvents: %d events, %d skipped, %v; want 19 and none skipped", len(evs), skipped, err)
	}
	var types []string
	for _, ev := range evs {
		if _, unknown := ev.Data.(state.UnknownEvent); unknown {
			t.Errorf("event %s not read into its type", ev.Type())
		}
		types = append(types, string(ev.Type()))
	}
	want := "run_started baseline_started baseline_finished" + strings.Repeat(" iteration_started iteration_finished", 5) +
		" escalated run_finished run_started iteration_started iteration_finished run_finished"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("types\n got %s\nwant %s", got, want)
	}
	if d, ok := evs[4].Data.(state.IterationFinished); !ok || evs[4].Iteration != 1 || d.Duration != 824 || d.Action != state.ActionRefine ||
		d.FailureThreshold != 3 || !d.Succeeded || len(d.Triggers) != 1 || d.Triggers[0] != "validation_failure" {
		t.Errorf("iteration 1 finished read as %+v", evs[4])
	}
	if d, ok := evs[15].Data.(state.RunStarted); !ok || !d.Resumed || d.MaxIterations != 8 {
		t.Errorf("the resumed session's start read as %+v", evs[15])
	}
	if d, ok := evs[18].Data.(state.RunFinished); !ok || d.Status != state.StatusSucceeded || d.Iterations != 6 || d.Wall != 2292 {
		t.Errorf("the last event read as %+v", evs[18])
	}

	r, err := LoadRunDir(dir, &st)
	if err != nil || len(r.Events) != 19 || !strings.Contains(r.Escalation, "# Escalation") {
		t.Fatalf("LoadRunDir: %d events, escalation %q, %v", len(r.Events), r.Escalation, err)
	}
	for name, render := range map[string]func(*bytes.Buffer) error{
		"markdown": func(b *bytes.Buffer) error { return Markdown(b, r) },
		"html":     func(b *bytes.Buffer) error { return HTML(b, r) },
		"json":     func(b *bytes.Buffer) error { return JSON(b, r) },
	} {
		var b bytes.Buffer
		if err := render(&b); err != nil || !strings.Contains(b.String(), "succeeded") {
			t.Errorf("%s report: %v\n%s", name, err, b.String())
		}
		if name == "json" && strings.Count(b.String(), `"v": 2`) != 19 {
			t.Errorf("JSON report: want the 19 events in the present schema")
		}
	}
}
