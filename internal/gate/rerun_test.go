package gate

import (
	"strings"
	"testing"
	"time"

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
		{"a gate that could not run", Infra(g, "cannot start"), false},
		{"a gate that timed out", TimedOut(g, time.Minute, Report{Findings: []evidence.Finding{test}}, nil), false},
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

func TestRerunSelected(t *testing.T) {
	t.Parallel()
	test := func(id string) evidence.Finding {
		return evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc." + id, Unit: "m/calc", Test: id, Message: id + " failed", Severity: evidence.SeverityError}
	}
	g := Gate{Name: "tests", Required: true}
	first := Judge(g, 1, Report{Findings: []evidence.Finding{test("TestAdd"), test("TestClock"), {Kind: evidence.KindCrash, Tool: "go", ID: "m/x", Unit: "m/x", Message: "package failed"}},
		Tests: evidence.TestCounts{Passed: 10, Failed: 3}}, nil)
	plan, err := PlanRerun([]string{"go", "test", "./..."}, first.Findings)
	if err != nil || len(plan.Left) != 1 {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	passed := func(n int, fs ...evidence.Finding) evidence.GateResult {
		exit := 0
		if len(fs) > 0 {
			exit = 1
		}
		return Judge(g, exit, Report{Findings: fs, Tests: evidence.TestCounts{Passed: n, Failed: len(fs)}}, nil)
	}
	tests := []struct {
		name          string
		second        evidence.GateResult
		flaky, counts []string
		note          string
	}{
		{"one passed again: flaky", passed(1, test("TestAdd")), []string{"TEST|go|calc.TestClock"},
			[]string{"TEST|go|calc.TestAdd", "CRASH|go|m/x"}, "1 failed again, 1 passed (flaky); 1 failure not named by any selector count as they are"},
		{"both failed again", passed(0, test("TestAdd"), test("TestClock")), nil,
			[]string{"TEST|go|calc.TestAdd", "TEST|go|calc.TestClock", "CRASH|go|m/x"}, "2 failed again, 0 passed"},
		{"the selector matched nothing: not flaky", passed(0), nil,
			[]string{"TEST|go|calc.TestAdd", "TEST|go|calc.TestClock", "CRASH|go|m/x"}, "did not show them passing (0 passed)"},
		{"the rerun did not build", Judge(g, 1, Report{Findings: []evidence.Finding{{Kind: evidence.KindBuild, Tool: "go", File: "a.go", Message: "undefined: x"}}}, nil), nil,
			[]string{"TEST|go|calc.TestAdd", "TEST|go|calc.TestClock", "CRASH|go|m/x"}, "did not show them passing"},
		{"the rerun could not run", Infra(g, "timed out after 1m"), nil,
			[]string{"TEST|go|calc.TestAdd", "TEST|go|calc.TestClock", "CRASH|go|m/x"}, "could not run: timed out after 1m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := RerunSelected(g, first, tt.second, plan)
			if got := keysOf(r.Flaky); strings.Join(got, ",") != strings.Join(tt.flaky, ",") {
				t.Errorf("flaky %v, want %v", got, tt.flaky)
			}
			if got := keysOf(r.Findings); strings.Join(got, ",") != strings.Join(tt.counts, ",") {
				t.Errorf("counted %v, want %v", got, tt.counts)
			}
			if r.Passed {
				t.Error("passed with failures left")
			}
			if !strings.Contains(r.RerunNote, tt.note) || !strings.Contains(r.RerunNote, "ran 2 failed tests again by name (go test -count=1 '-run=^(TestAdd|TestClock)$' m/calc)") {
				t.Errorf("note %q, want it to say %q", r.RerunNote, tt.note)
			}
		})
	}
	t.Run("all flaky: green", func(t *testing.T) {
		t.Parallel()
		one := Judge(g, 1, Report{Findings: []evidence.Finding{test("TestClock")}}, nil)
		p, _ := PlanRerun([]string{"go", "test", "./..."}, one.Findings)
		r := RerunSelected(g, one, passed(1), p)
		if !r.Passed || r.ExitCode != 0 || len(r.Findings) != 0 || r.Fingerprint != "" {
			t.Errorf("result %+v, want green", r)
		}
	})
	// A rerun that did not build, or whose command failed as a whole, shows
	// nothing of the tests it was to run, whatever else passed in it (the
	// packages that did build): the gate stays red.
	for _, f := range []evidence.Finding{
		{Kind: evidence.KindBuild, Tool: "go", File: "a.go", Message: "undefined: x"},
		{Kind: evidence.KindGate, Tool: "go", Message: "exit status 2"},
	} {
		t.Run("the rerun failed with "+string(f.Kind)+" and tests passed: red", func(t *testing.T) {
			t.Parallel()
			one := Judge(g, 1, Report{Findings: []evidence.Finding{test("TestClock")}, Tests: evidence.TestCounts{Passed: 10, Failed: 1}}, nil)
			p, _ := PlanRerun([]string{"go", "test", "./..."}, one.Findings)
			second := Judge(g, 1, Report{Findings: []evidence.Finding{f}, Tests: evidence.TestCounts{Passed: 5}}, nil)
			r := RerunSelected(g, one, second, p)
			if r.Passed || len(r.Flaky) != 0 || len(r.Findings) != 1 || !strings.Contains(r.RerunNote, "did not show them passing (5 passed)") {
				t.Errorf("result passed=%v flaky=%v findings=%v note %q; want red, the failure counted", r.Passed, keysOf(r.Flaky), keysOf(r.Findings), r.RerunNote)
			}
		})
	}
	t.Run("tolerated baseline failures left: green", func(t *testing.T) {
		t.Parallel()
		tg := g
		tg.TolerateBaseline = true
		base := Judge(tg, 1, Report{Findings: []evidence.Finding{test("TestOld")}}, nil)
		cur := Judge(tg, 1, Report{Findings: []evidence.Finding{test("TestOld"), test("TestClock")}}, &base)
		p, _ := PlanRerun([]string{"go", "test", "./..."}, cur.Findings)
		if r := RerunSelected(tg, cur, passed(1), p); !r.Passed || len(r.Preexisting) != 1 {
			t.Errorf("result %+v, want green with the baseline's failure", r)
		}
		if r := RerunSelected(g, cur, passed(1), p); r.Passed {
			t.Errorf("without tolerate_baseline: green with a failure left")
		}
	})
}
