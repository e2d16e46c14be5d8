package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/evidence"
)

// TestRenderBaselineInfra: a gate with baseline failures (listed apart), a gate
// that could not run, and a gate that passed (left out).
func TestRenderBaselineInfra(t *testing.T) {
	t.Parallel()
	mixed := fixtureReport(t, "go/go_test_json_mixed.jsonl", "/src/gosample")
	g := Gate{Name: "tests", Command: "go test -json ./...", Required: true}
	base := Judge(g, 1, Report{Findings: mixed.Findings[:2]}, nil)
	res := Judge(g, 1, mixed, &base)
	if len(res.Findings) != 2 || len(res.Preexisting) != 2 {
		t.Fatalf("findings %d, preexisting %d", len(res.Findings), len(res.Preexisting))
	}
	results := []evidence.GateResult{
		res,
		Infra(Gate{Name: "lint", Command: "golangci-lint run"}, "cannot start: executable file not found in $PATH"),
		Judge(Gate{Name: "vet"}, 0, Report{}, nil),
	}
	got := Render(results, nil, RenderOptions{MaxLength: 600, LogDir: ".agentloop/runs/x/iter-003/gates"})
	golden := filepath.Join("testdata", "render_baseline.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("Render (-want +got):\n%s", diff)
	}
	if strings.Contains(got, "vet") {
		t.Error("a passing gate is shown")
	}
}

// TestRenderBudget: whatever the budget, the feedback never exceeds it and a
// location is never cut.
func TestRenderBudget(t *testing.T) {
	t.Parallel()
	rep := fixtureReport(t, "go/gotestsum_jsonfile.jsonl", "/src/gosample")
	res := Judge(Gate{Name: "tests", Command: "go test -json ./..."}, 1, rep, nil)
	for _, n := range []int{60, 120, 200, 300, 500, 1000} {
		got := Render([]evidence.GateResult{res, res}, nil, RenderOptions{MaxLength: n})
		if c := utf8.RuneCountInString(got); c > n {
			t.Errorf("budget %d: %d runes", n, c)
		}
		for _, line := range strings.Split(got, "\n") {
			if i := strings.Index(line, " ("); strings.HasPrefix(line, "1. ") && i > 0 && strings.Contains(line[i:], "…") && !strings.Contains(line[i:], "): ") {
				t.Errorf("budget %d: location cut in %q", n, line)
			}
		}
	}
	if got := Render(nil, nil, RenderOptions{}); got != "" {
		t.Errorf("no results: %q", got)
	}
}
