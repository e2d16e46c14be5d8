package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

func TestGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		run    Run
		render func(*bytes.Buffer, Run) error
	}{
		{"markdown", sampleRun(), func(b *bytes.Buffer, r Run) error { return Markdown(b, r) }},
		{"markdown_tasks", graphRun(), func(b *bytes.Buffer, r Run) error { return Markdown(b, r) }},
		{"json", sampleRun(), func(b *bytes.Buffer, r Run) error { return JSON(b, r) }},
		{"markdown_segments", segmentedRun(), func(b *bytes.Buffer, r Run) error { return Markdown(b, r) }},
		{"json_segments", segmentedRun(), func(b *bytes.Buffer, r Run) error { return JSON(b, r) }},
		{"markdown_empty", Run{}, func(b *bytes.Buffer, r Run) error { return Markdown(b, r) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			if err := tt.render(&b, tt.run); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, b.Bytes())
		})
	}
}

func TestUnknownIsNeverZero(t *testing.T) {
	t.Parallel()
	r := sampleRun()
	r.State.Spend = state.Spend{Usage: evidence.Usage{InputTokens: 0}}
	for i := range r.State.History {
		r.State.History[i].Usage = evidence.Usage{}
	}
	var md bytes.Buffer
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "$0.00") {
		t.Errorf("unknown cost rendered as $0.00:\n%s", md.String())
	}
	if got := strings.Count(md.String(), "unknown"); got < 3+len(r.State.History) {
		t.Errorf("want unknown tokens and costs marked, found %d \"unknown\"", got)
	}
	var js bytes.Buffer
	if err := JSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summary map[string]any `json:"summary"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tokens", "cost_usd"} {
		if v, ok := doc.Summary[k]; !ok || v != nil {
			t.Errorf("summary.%s = %v, want null", k, v)
		}
	}
}

func TestOutputProblems(t *testing.T) {
	t.Parallel()
	rec := func(n int, problems ...string) state.Record {
		r := state.Record{N: n}
		for i, p := range problems {
			r.Gates = append(r.Gates, state.GateSummary{Name: []string{"tests", "lint"}[i], OutputProblems: p})
		}
		return r
	}
	h := []state.Record{rec(1, "2 lines could not be parsed as gotest-json: \"x\""), rec(2, "", "cut"),
		rec(3, "2 lines could not be parsed as gotest-json: \"x\""), rec(4)}
	want := []string{
		`tests, attempts 1–3 (2 times): 2 lines could not be parsed as gotest-json: "x"`,
		"lint, attempt 2: cut",
	}
	if diff := cmp.Diff(want, outputProblems(h)); diff != "" {
		t.Errorf("outputProblems (-want +got):\n%s", diff)
	}
	if got := outputProblems([]state.Record{rec(1, "")}); len(got) != 0 {
		t.Errorf("outputProblems of clean gates = %q", got)
	}
}
