package gate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/evidence"
)

// TestRenderBigFailure: a big failure of a real suite, under the default cap:
// the count in words, the causes several tests share once each with the
// first test's name, distinct messages with file:line, every failing test
// named or counted in its package, nothing internal (golden:
// testdata/render_big_*.golden). gotestsum's five causes leave one out: the
// names of the shared causes' first tests take its room.
func TestRenderBigFailure(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, file, format, command string
		tests                       int
		want                        []string
		left                        int // causes left out
	}{
		{"csv", "go/csv_position_bug.jsonl", "", "go test -count=1 -json ./...", 36, []string{"tests (go test -count=1 -json ./...) failed (exit 1): 36 failing tests\n",
			"36 tests alike, first TestRead/Simple (reader_test.go:484): position mismatch at record 0, field 1; | got [1 2] | want [1 3]",
			"- csv: TestRead{Simple, CRLF, BareCR,"}, 0},
		{"gotestsum", "go/gotestsum_total_bug.jsonl", "", "go test -count=1 -json ./...", 13, []string{"failed (exit 1): 13 failing tests in 3 packages\n",
			"7 tests alike, first TestPrintSumm… (summary_test.go:181): -DONE 14", "3 tests alike, first TestWrite (report_test.go:32): -…",
			"2. testjson.TestScanTestOutput_MinimalConfig (execution_test.go:45): 64 (int) != 59 (int)", "(+11 more tests in 3 packages)"}, 1},
		{"click", "python/click_usage_bug.txt", "python", "/usr/bin/python3 -m pytest -p no:cacheprovider --ignore=tests/test_deprecations.py tests", 54,
			[]string{"failed (exit 1): 54 failing tests in 6 files\n", "17 tests alike, first test_argume… (tests/test_arguments.py:373): assert 'usage",
				" == 'Usage", "14 tests alike, first test_basic_… (tests/test_formatting.py:32): assert ['usag", "5 tests alike, first test_subcom… (tests/test_arguments.py:641): assert 'Usage",
				" in 'usage", "3 tests alike, first test_choice… (tests/test_basic.py:648): assert False | + where F"}, 0},
		{"ufo", "js/ufo_trailing_slash_bug.json", "vitest-json", "./node_modules/.bin/vitest run --reporter=json", 28,
			[]string{"failed (exit 1): 28 failing tests in 6 files\n", "24 tests alike, first withBase › \"/foo\" + \"/bar\" (test/base.test.ts:36): expected '/foo//bar' to be '/foo/bar'",
				"1. $URL › append (test/url.test.ts:44): "}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", "fixtures", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Parse(bytes.NewReader(b), Options{Format: tt.format, WorkDir: "/src/" + tt.name})
			if err != nil {
				t.Fatal(err)
			}
			res := Judge(Gate{Name: "tests", Command: tt.command, Required: true}, 1, rep, nil)
			if len(res.Findings) != tt.tests {
				t.Fatalf("%d findings, want %d", len(res.Findings), tt.tests)
			}
			res.Command = tt.command
			got := Render([]evidence.GateResult{res}, nil, RenderOptions{})
			if n := utf8.RuneCountInString(got); n > DefaultMaxLength {
				t.Errorf("%d runes, over the cap", n)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("feedback lacks %q:\n%s", w, got)
				}
			}
			if strings.Contains(got, "[fp") || strings.Contains(got, res.Fingerprint[:12]) {
				t.Errorf("a fingerprint in the prompt:\n%s", got)
			}
			if n := accounted(got); n != tt.tests {
				t.Errorf("%d failing tests named or counted, want %d:\n%s", n, tt.tests, got)
			}
			if shown, all := causesShown(got), CauseCount(res.Findings); shown != all-tt.left {
				t.Errorf("%d causes shown of %d, want %d:\n%s", shown, all, all-tt.left, got)
			}
			renderGolden(t, "render_big_"+tt.name+".golden", got)
		})
	}
}

var (
	countedRE  = regexp.MustCompile(`\+(\d+)(?: more|\})|(\d+) tests?\b`)
	numberedRE = regexp.MustCompile(`^\d+\. `)
	causeRE    = regexp.MustCompile(`^\d+ tests alike`)
)

// causesShown counts the causes a feedback shows: the shared ones and the
// numbered distinct messages.
func causesShown(feedback string) int {
	n := 0
	for _, line := range strings.Split(feedback, "\n") {
		if causeRE.MatchString(line) || numberedRE.MatchString(line) {
			n++
		}
	}
	return n
}

// accounted counts the failing tests a feedback names or counts: each
// numbered line is one; in the names, each test named and each count.
func accounted(feedback string) int {
	n := 0
	names := false
	for _, line := range strings.Split(feedback, "\n") {
		switch {
		case numberedRE.MatchString(line):
			n++
		case line == "Failing tests:":
			names = true
		case names && strings.HasPrefix(line, "- "), strings.HasPrefix(line, "(+"):
			_, list, ok := strings.Cut(line, ": ")
			if !ok || strings.HasPrefix(line, "(+") {
				list = line
			}
			for _, m := range countedRE.FindAllStringSubmatch(list, -1) {
				k, _ := strconv.Atoi(m[1] + m[2])
				n += k
			}
			list = countedRE.ReplaceAllString(list, "")
			list = regexp.MustCompile(`\w+\{`).ReplaceAllString(list, "")
			for _, name := range strings.Split(list, ",") {
				if strings.Trim(name, " {}()") != "" && !strings.Contains(name, "full log") && !strings.Contains(name, " in ") {
					n++
				}
			}
		}
	}
	return n
}

func TestSplitTest(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][2]string{
		"TestRead/quoted":                 {"TestRead", "quoted"},
		"TestNested/outer/inner":          {"TestNested", "outer/inner"},
		"auth › login › rejects":          {"auth › login", "rejects"},
		"TestAuth::test_login[a-1]":       {"TestAuth", "test_login[a-1]"},
		"test_names_user[bob]":            {"test_names_user", "bob"},
		"tests::adds":                     {"tests", "adds"},
		"TestPlain":                       {"TestPlain", ""},
		"login returns token (a/b) works": {"login returns token (a", "b) works"},
	} {
		p, s := splitTest(in)
		if p != want[0] || s != want[1] {
			t.Errorf("splitTest(%q) = %q, %q; want %q, %q", in, p, s, want[0], want[1])
		}
	}
}

func TestShapeAndGist(t *testing.T) {
	t.Parallel()
	f := func(msg string) evidence.Finding { return evidence.Finding{Kind: evidence.KindTest, Message: msg} }
	diff := "assertion failed: | --- expected | +++ actual | @@ -8,4 +8,4 @@ | TESTS_FAILED=13 | -TESTS_TOTAL=59 | +TESTS_TOTAL=64"
	if got, want := gist(diff), "-TESTS_TOTAL=59 | +TESTS_TOTAL=64"; got != want {
		t.Errorf("gist = %q, want %q", got, want)
	}
	if got := gist("got 1 | want 2"); got != "got 1 | want 2" {
		t.Errorf("gist of a message without a diff changed it: %q", got)
	}
	same := [][2]string{
		{"position mismatch at record 0, field 1; | got [1 2]", "position mismatch at record 3, field 2; | got [9 9]"},
		{`Read() = "a", want "b"`, `Read() = "c d", want "e"`},
		{"assertion failed: | --- x | +++ y | -DONE 14 tests, 1 skipped", "assertion failed: | --- x | +++ y | -DONE 2 runs, 59 tests"},
		{`assert ['usage: cmd ...ument 'ARG'."] == ['Usage: cmd ...ument 'ARG'."]`, `assert ['usage: cmd ...t 'metavar'."] == ['Usage: cmd ...t 'metavar'."]`},
		// an assertion's label, and pytest's explanation of a value, tell no cause apart
		{`AssertionError: assert ['usage: cli ...rapped.', ...] == ['Usage: cli ...rapped.', ...]`, `assert ['usage: cmd ...ument 'ARG'."] == ['Usage: cmd ...ument 'ARG'."]`},
		{`AssertionError: assert 'Usage: cli VAR' in 'usage: cli VAR\n' | + where 'usage: cli VAR\n' = <Result okay>.output`, `AssertionError: assert 'Usage: cli-variadic' in 'usage: cli-variadic\n'`},
	}
	for _, p := range same {
		if shape(f(p[0])) != shape(f(p[1])) {
			t.Errorf("%q and %q: shapes differ: %q, %q", p[0], p[1], shape(f(p[0])), shape(f(p[1])))
		}
	}
	differ := [][2]string{
		{"assertion failed: | --- x | +++ y | -DONE 14 tests", "assertion failed: | --- x | +++ y | -TESTS_TOTAL=59"},
		{"timeout waiting for x", "nil pointer dereference"},
	}
	for _, p := range differ {
		if shape(f(p[0])) == shape(f(p[1])) {
			t.Errorf("%q and %q: one shape %q", p[0], p[1], shape(f(p[0])))
		}
	}
	if shape(evidence.Finding{Kind: evidence.KindCrash, Message: "x"}) == shape(f("x")) {
		t.Error("a crash and a failure share a shape")
	}
}

func TestNameGroupLine(t *testing.T) {
	t.Parallel()
	var fs []evidence.Finding
	for _, name := range []string{"TestRead/Simple", "TestRead/CRLF", "TestRead/BareCR", "TestWrite", "TestFields"} {
		fs = append(fs, evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "csv." + name, Unit: "m/csv", Test: name})
	}
	g := groupNames(fs)[0]
	for _, tt := range []struct {
		room int
		want string
	}{
		{200, "- csv: TestRead{Simple, CRLF, BareCR}, TestWrite, TestFields"},
		{50, "- csv: TestRead{Simple, CRLF, BareCR}, +2 more"},
		{40, "- csv: TestRead{Simple, +2}, +2 more"},
		{20, "- csv: 5 tests"},
		{8, "- csv: …"},
	} {
		got := g.line(tt.room)
		if got != tt.want {
			t.Errorf("room %d: %q, want %q", tt.room, got, tt.want)
		}
		if utf8.RuneCountInString(got) > tt.room {
			t.Errorf("room %d: %q is longer", tt.room, got)
		}
	}
}

// TestRenderGroupedBudget: whatever the budget, grouped feedback stays within
// it and accounts for every failing test it has room to count.
func TestRenderGroupedBudget(t *testing.T) {
	t.Parallel()
	rep := fixtureReport(t, "go/gotestsum_total_bug.jsonl", "/src/gotestsum")
	res := Judge(Gate{Name: "tests", Command: "go test -json ./..."}, 1, rep, nil)
	res.LogPath = "/home/someone/projects/a-long-project-name/.agentloop/runs/build/20261125-013000/iter-001/gates/tests.log"
	for n := 160; n <= 2000; n += 37 {
		got := Render([]evidence.GateResult{res}, nil, RenderOptions{MaxLength: n})
		for _, line := range strings.Split(got, "\n") {
			if strings.HasPrefix(line, "(+") && !strings.HasSuffix(line, ")") {
				t.Errorf("budget %d: a count cut short: %q", n, line)
			}
		}
		if c := utf8.RuneCountInString(got); c > n {
			t.Errorf("budget %d: %d runes", n, c)
		}
		if a := accounted(got); n >= 300 && a != len(res.Findings) {
			t.Errorf("budget %d: %d of %d tests accounted for:\n%s", n, a, len(res.Findings), got)
		}
	}
}

// TestCutCause: a cause's message cut short keeps what tells it apart: a
// diff its first removed and added lines, a comparison its two values, each
// from where they differ; an assertion's label goes first; anything else is
// cut at its end. The messages are the real suites' (testdata/fixtures).
func TestCutCause(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		msg  string
		n    int
		want string
	}{
		// gotestsum's recorded failure (go/gotestsum_total_bug.jsonl)
		{"-TESTS_TOTAL=59 | +TESTS_TOTAL=64", 40, "-TESTS_TOTAL=59 | +TESTS_TOTAL=64"},
		{"-TESTS_TOTAL=59 | +TESTS_TOTAL=64", 23, "-…TOTAL=59 | +…TOTAL=64"},
		{`-<testsuites name="test" tests="59" failures="13" | +<testsuites name="test" tests="64" failures="13"`, 41, `-…"test" tests="59… | +…"test" tests="64…`},
		{"-DONE 14 tests, 1 skipped | +DONE 13 tests, 1 skipped", 31, "-DONE 14 test… | +DONE 13 test…"},
		{"assertion failed: 64 (int) != 59 (int)", 20, "64 (int) != 59 (int)"},
		// JUnit's through Gradle (java/gradle_calc.xml)
		{"java.lang.AssertionError: expected:<21> but was:<22>", 30, "expected:<21> but was:<22>"},
		// click's (python/click_usage_bug.txt)
		{"AssertionError: assert 'usage: cli [OPTIONS] FOO' == 'Usage: cli [OPTIONS] FOO' | - Usage: cli [OPTIONS] FOO | ? ^ | + usage: cli [OPTIONS] FOO | ? ^", 20,
			"'usage:… == 'Usage:…"},
		{"AssertionError: assert 'usage: cli [OPTIONS] FOO' == 'Usage: cli [OPTIONS] FOO' | - Usage: cli [OPTIONS] FOO | ? ^ | + usage: cli [OPTIONS] FOO | ? ^", 30,
			"assert 'usage: … == 'Usage: c…"},
		{"AssertionError: assert ['usage: cli ...rapped.', ...] == ['Usage: cli ...rapped.', ...] | At index 0 diff: 'usage: cli [OPTIONS]' != 'Usage: cli [OPTIONS]'", 36,
			"assert ['usage: cl… == ['Usage: cli…"},
		{`AssertionError: assert 'Usage: cli NAME VAL cmd [OPTIONS]' in 'usage: cli NAME VAL cmd [OPTIONS]\n\nOptions:\n --help Show this message and exit.\n' | + where 'usage: cli NAME VAL cmd [OPTIONS]\n\nOptions:\n' = <Result okay>.output`, 34,
			"assert 'Usage: cl… in 'usage: cli…"},
		{"AssertionError: assert False | + where False = <built-in method startswith of str object at 0x7fa8dd4e81e0>('Usage: cli [OPTIONS] {not-none|none}\\n')", 40,
			"assert False | + where False = str.star…"},
		// ufo's (js/ufo_trailing_slash_bug.json): values that print alike are cut at the end
		{"expected '/admin//admin-dashboard' to be '/admin/admin-dashboard' // Object.is equality", 40, "'/admin//admin-… to be '/admin/admin-da…"},
		{"expected 'https://john:doe@example.com:1080/pat…' to deeply equal 'https://john:doe@example.com:1080/pat…'", 30, "expected 'https://john:doe@ex…"},
		// too little room to show where values differ: cut at the end
		{"AssertionError: expected { a: 1, b: [ 1, 2 ] } to deeply equal { a: 1, b: [ 1, 3 ] }", 20, "expected { a: 1, b:…"},
		// no comparison of values: a sentence, a diff's heading, Rust's assertion
		{"Expected values to be deep-equal: | + actual - expected | - 3", 20, "Expected values to …"},
		{"assertion `left == right` failed | left: 4 | right: 5", 20, "assertion `left == …"},
	} {
		got := cutCause(tt.msg, tt.n)
		if got != tt.want || utf8.RuneCountInString(got) > tt.n {
			t.Errorf("cutCause(%q, %d) = %q, want %q", tt.msg, tt.n, got, tt.want)
		}
	}
}

// csvLike is a gate result like encoding/csv's with one bug: n failing
// subtests of TestRead, all failing alike but for the last three.
func csvLike(n int) evidence.GateResult {
	r := evidence.GateResult{Name: "tests", Command: "go test ./...", ExitCode: 1, LogPath: "/w/.agentloop/runs/r/1/iter-001/gates/tests.log"}
	for i := range n {
		msg := fmt.Sprintf("ReadAll() output: | got [[a b]] | want [[a %d]]", i)
		if i >= n-3 {
			msg = fmt.Sprintf("unexpected error %d: record on line %d: wrong number of fields", i, i)
		}
		r.Findings = append(r.Findings, evidence.Finding{
			Kind: evidence.KindTest, Tool: "go", ID: fmt.Sprintf("csv.TestRead/Case%02d", i), Unit: "encoding/csv",
			Test: fmt.Sprintf("TestRead/Case%02d", i), File: "reader_test.go", Line: 443, Message: msg,
		})
	}
	return r
}

// TestCauseLineNamesFirstTest: a line that counts tests failing alike names
// the first of them.
func TestCauseLineNamesFirstTest(t *testing.T) {
	t.Parallel()
	got := Render([]evidence.GateResult{csvLike(33)}, nil, RenderOptions{})
	if !strings.Contains(got, "30 tests alike, first TestRead/Case00 (reader_test.go:443): ") {
		t.Errorf("the cause line does not name its first test:\n%s", got)
	}
}
