package gate

import (
	"strings"
	"testing"
	"unicode/utf8"

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
	renderGolden(t, "render_baseline.golden", got)
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

// TestRenderPerGate: a gate's own budget bounds its part of the feedback; 0
// sets none (the gate gets its share of the total, as without an entry).
func TestRenderPerGate(t *testing.T) {
	t.Parallel()
	rep := fixtureReport(t, "go/gotestsum_jsonfile.jsonl", "/src/gosample")
	res := Judge(Gate{Name: "tests", Command: "go test -json ./..."}, 1, rep, nil)
	shared := Render([]evidence.GateResult{res}, nil, RenderOptions{MaxLength: 500})
	if utf8.RuneCountInString(shared) <= 200 {
		t.Fatalf("the fixture's feedback is too short to tell a budget of 200 from none:\n%s", shared)
	}
	tests := []struct {
		name    string
		perGate map[string]int
		max     int  // runes at most
		same    bool // the same as without PerGate
	}{
		{"no entry", map[string]int{"lint": 50}, 500, true},
		{"0 sets none", map[string]int{"tests": 0}, 500, true},
		{"its own budget", map[string]int{"tests": 200}, 200, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Render([]evidence.GateResult{res}, nil, RenderOptions{MaxLength: 500, PerGate: tt.perGate})
			if n := utf8.RuneCountInString(got); n > tt.max {
				t.Errorf("%d runes, want at most %d:\n%s", n, tt.max, got)
			}
			if (got == shared) != tt.same {
				t.Errorf("same as without PerGate: %v, want %v:\n%s", got == shared, tt.same, got)
			}
		})
	}
}

// TestRenderHeader: a failing gate's header counts its findings by kind, and
// says nothing more when it has none to count.
func TestRenderHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		res  evidence.GateResult
		want string
	}{
		{"no findings", evidence.GateResult{Name: "lint", ExitCode: 2}, "lint failed (exit 2)"},
		{"exit unknown", evidence.GateResult{Name: "lint", ExitCode: -1}, "lint failed"},
		{"findings by kind", evidence.GateResult{Name: "tests", ExitCode: 1, Findings: []evidence.Finding{
			{Kind: evidence.KindTest, ID: "TestA", Message: "boom"}, {Kind: evidence.KindBuild, File: "a.go", Line: 3, Message: "undefined: x"}}},
			"tests failed (exit 1): 1 build error, 1 failing test"},
		{"tests in words, by unit, crashes and timeouts said", evidence.GateResult{Name: "tests", ExitCode: 1, Fingerprint: "72b58c758f92aa", Findings: []evidence.Finding{
			{Kind: evidence.KindTest, Tool: "go", ID: "a.TestA", Unit: "m/a", Test: "TestA"}, {Kind: evidence.KindCrash, Tool: "go", ID: "a.TestB", Unit: "m/a", Test: "TestB"},
			{Kind: evidence.KindTimeout, Tool: "go", ID: "b.TestC", Unit: "m/b", Test: "TestC"}, {Kind: evidence.KindLint, Tool: "go", File: "x.go", Message: "unused"},
			{Kind: evidence.KindLint, Tool: "go", File: "y.go", Message: "unused"}}, Preexisting: []evidence.Finding{{Kind: evidence.KindTest, ID: "c.TestD"}}},
			"tests failed (exit 1): 3 failing tests (1 crashed, 1 timed out) in 2 packages, 2 lint findings, 1 already failing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _, _ := strings.Cut(Render([]evidence.GateResult{tt.res}, nil, RenderOptions{}), "\n")
			if got != tt.want {
				t.Errorf("header %q, want %q", got, tt.want)
			}
		})
	}
}
