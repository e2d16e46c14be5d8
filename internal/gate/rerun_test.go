package gate

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/evidence"
)

func TestRerun(t *testing.T) {
	t.Parallel()
	test := func(id string) evidence.Finding {
		return evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: id, Message: id + " failed", Severity: evidence.SeverityError}
	}
	g := Gate{Name: "tests", Required: true}
	tests := []struct {
		name          string
		first, second evidence.GateResult
		passed        bool
		flaky, counts []string
	}{
		{name: "failed then passed: flaky, green",
			first: Judge(g, 1, Report{Findings: []evidence.Finding{test("calc.TestClock")}}, nil), second: Judge(g, 0, Report{}, nil),
			passed: true, flaky: []string{"TEST|go|calc.TestClock"}},
		{name: "failed twice: real",
			first: Judge(g, 1, Report{Findings: []evidence.Finding{test("calc.TestAdd")}}, nil), second: Judge(g, 1, Report{Findings: []evidence.Finding{test("calc.TestAdd")}}, nil),
			counts: []string{"TEST|go|calc.TestAdd"}},
		{name: "one of two did not repeat",
			first:  Judge(g, 1, Report{Findings: []evidence.Finding{test("calc.TestAdd"), test("calc.TestClock")}}, nil),
			second: Judge(g, 1, Report{Findings: []evidence.Finding{test("calc.TestAdd")}}, nil),
			flaky:  []string{"TEST|go|calc.TestClock"}, counts: []string{"TEST|go|calc.TestAdd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Rerun(tt.first, tt.second)
			if r.Passed != tt.passed {
				t.Errorf("passed %v, want %v", r.Passed, tt.passed)
			}
			if got := keysOf(r.Flaky); strings.Join(got, ",") != strings.Join(tt.flaky, ",") {
				t.Errorf("flaky %v, want %v", got, tt.flaky)
			}
			if got := keysOf(r.Findings); strings.Join(got, ",") != strings.Join(tt.counts, ",") {
				t.Errorf("counted %v, want %v", got, tt.counts)
			}
			if len(tt.flaky) > 0 && !strings.Contains(Render([]evidence.GateResult{r}, nil, RenderOptions{}), "flaky: failed then passed: calc.TestClock (not counted)") {
				t.Errorf("feedback does not say the flaky failure:\n%s", Render([]evidence.GateResult{r}, nil, RenderOptions{}))
			}
		})
	}
}

func TestShouldRerun(t *testing.T) {
	t.Parallel()
	g := Gate{Name: "tests", Required: true}
	test := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "T", Message: "x", Severity: evidence.SeverityError}
	build := evidence.Finding{Kind: evidence.KindBuild, Tool: "go", File: "a.go", Message: "undefined: x", Severity: evidence.SeverityError}
	base := Judge(g, 1, Report{Findings: []evidence.Finding{test}}, nil)
	optional := g
	optional.Required = false
	for _, tt := range []struct {
		name string
		r    evidence.GateResult
		want bool
	}{
		{"a new test failure", Judge(g, 1, Report{Findings: []evidence.Finding{test}}, nil), true},
		{"a failure the baseline had", Judge(g, 1, Report{Findings: []evidence.Finding{test}}, &base), false},
		{"a build failure does not flake", Judge(g, 1, Report{Findings: []evidence.Finding{test, build}}, nil), false},
		{"an optional gate", Judge(optional, 1, Report{Findings: []evidence.Finding{test}}, nil), false},
		{"a passing gate", Judge(g, 0, Report{}, nil), false},
		{"a gate that could not run", Infra(g, "timed out"), false},
	} {
		if got := ShouldRerun(tt.r); got != tt.want {
			t.Errorf("%s: ShouldRerun = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func keysOf(fs []evidence.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, Key(f))
	}
	return out
}
