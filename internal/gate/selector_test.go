package gate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/evidence"
)

// TestSelectors: each parser names a failed test as its runner selects it
// again (Unit, Test), from real output.
func TestSelectors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, format, module string
		workDir              string
		id                   string // the finding looked at
		unit, test           string
	}{
		{"go/go_test_json_mixed.jsonl", "gotest-json", "", "", "calc.TestTable/2+2", "example.com/gosample/calc", "TestTable/2+2"},
		{"go/go_test_json_mixed.jsonl", "gotest-json", "", "", "panicky.TestPanics", "example.com/gosample/panicky", "TestPanics"},
		{"go/go_test_json_timeout.jsonl", "gotest-json", "", "", "slow.TestHangs", "example.com/gosample/slow", "TestHangs"},
		{"go/go_test_v_mixed.txt", "gotest", "", "", "calc.TestNested/outer/inner_fails", "example.com/gosample/calc", "TestNested/outer/inner_fails"},
		{"go/go_test_plain_mixed.txt", "gotest", "", "", "calc.TestLogin", "example.com/gosample/calc", "TestLogin"},
		{"go/gotestsum_testname.txt", "gotestsum", "example.com/gosample", "", "calc.TestLogin", "example.com/gosample/calc", "TestLogin"},
		{"go/gotestsum_testname.txt", "gotestsum", "", "", "calc.TestLogin", "./calc", "TestLogin"},
		{"go/gotestsum_junit.xml", "junit", "", "", "example.com/gosample/calc.TestLogin", "example.com/gosample/calc", "TestLogin"},
		{"python/pytest_mixed.txt", "python", "", "", "test_param.py::test_token_names_user[bob]", "test_param.py", "test_token_names_user[bob]"},
		{"python/pytest_mixed.txt", "python", "", "", "test_auth.py::TestLogin::test_error", "test_auth.py", "TestLogin::test_error"},
		{"js/jest_json.json", "jest-json", "", "/src/nodesample", "jtest/login.test.js › auth login token contains userId", "jtest/login.test.js", "auth › login › token contains userId"},
		{"js/vitest_json.json", "vitest-json", "", "/src/nodesample", "vtest/login.test.js › auth login token contains userId", "vtest/login.test.js", "auth › login › token contains userId"},
		{"js/jest_default_reporter.txt", "js-text", "", "/src/nodesample", "jtest/login.test.js › auth login token contains userId", "jtest/login.test.js", "auth › login › token contains userId"},
		{"java/surefire_calc.xml", "junit", "", "", "calc.AddTableTest.add[20+1]", "calc.AddTableTest", "add[20+1]"},
		{"java/surefire_calc.xml", "junit", "", "", "calc.CalcTest.divides", "calc.CalcTest", "divides"},
		{"js/jest_junit.xml", "junit", "", "/src/nodesample", "auth login token contains userId", "jtest/login.test.js", "auth login token contains userId"},
		{"js/vitest_junit.xml", "junit", "", "/src/nodesample", "vtest/login.test.js.auth > login > token contains userId", "vtest/login.test.js", "auth › login › token contains userId"},
		{"js/ufo_trailing_slash_bug.json", "vitest-json", "", "/src/ufo", "test/trailing-slash.test.ts › withTrailingSlash, queryParams: false", "test/trailing-slash.test.ts", "withTrailingSlash, queryParams: false › "},
		{"rust/cargo_test_merged.txt", "cargo", "", "", "tests::eq_fails", "src/lib.rs", "tests::eq_fails"},
		{"node/node_test_default_nontty.tap", "tap", "", "/src/nodetest", "login returns token containing userId", "test/login.test.js", "login returns token containing userId"},
		{"tap/prove_plain.txt", "tap", "", "", "token contains userId", "t/basic.t", "token contains userId"},
		{"tap/prove_plain.txt", "tap", "", "", "t/dies.t", "t/dies.t", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.id, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", "fixtures", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Parse(strings.NewReader(string(b)), Options{Format: tt.format, WorkDir: tt.workDir, Module: tt.module})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, f := range rep.Findings {
				ids = append(ids, f.ID)
				if f.ID != tt.id {
					continue
				}
				if f.Unit != tt.unit || f.Test != tt.test {
					t.Errorf("%s: unit %q test %q, want %q %q", f.ID, f.Unit, f.Test, tt.unit, tt.test)
				}
				return
			}
			t.Errorf("no finding %q among %q", tt.id, ids)
		})
	}
}

// TestPytestSummaryIDsWithSpaces: a parameterized test's node id may hold
// spaces and " - " inside its brackets; it is read whole, and the message after it.
func TestPytestSummaryIDsWithSpaces(t *testing.T) {
	t.Parallel()
	in := "=========================== short test summary info ============================\n" +
		"FAILED tests/test_options.py::test_flag[args8-Usage: main \\[OPTIONS\\] - x] - AssertionError: assert 1 == 2\n" +
		"FAILED tests/test_commands.py::test_metavar[True-COMMAND1 [ARGS]... [COMMAND2 [ARGS]...]...]\n" +
		"FAILED tests/test_a.py::test_plain - KeyError: 'k'\n" +
		"============== 3 failed, 1 passed in 0.14s ===============\n"
	rep, err := Parse(strings.NewReader(in), Options{Format: "python"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]string{
		{"test_flag[args8-Usage: main \\[OPTIONS\\] - x]", "tests/test_options.py", "AssertionError: assert 1 == 2"},
		{"test_metavar[True-COMMAND1 [ARGS]... [COMMAND2 [ARGS]...]...]", "tests/test_commands.py", "failed"},
		{"test_plain", "tests/test_a.py", "KeyError: 'k'"},
	}
	if len(rep.Findings) != len(want) {
		t.Fatalf("findings %+v, want %d", rep.Findings, len(want))
	}
	for i, f := range rep.Findings {
		if f.Test != want[i][0] || f.Unit != want[i][1] || f.Message != want[i][2] {
			t.Errorf("finding %d: test %q unit %q message %q, want %q", i, f.Test, f.Unit, f.Message, want[i])
		}
	}
}

// TestPytestCountsLine: pytest's counts line is read between "=" rules and,
// as -q prints it, bare; the flaky check needs its passed count.
func TestPytestCountsLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		line         string
		passed, skip int
	}{
		{"============== 3 failed, 1 passed in 0.14s ===============", 1, 0},
		{"==== 1 failed, 12 passed, 2 skipped, 1 xfailed, 3 warnings in 65.20s (0:01:05) ====", 12, 3},
		{"1 failed, 4 passed, 24 skipped, 1 deselected in 9.81s", 4, 24},
		{"2 failed, 1 passed in 123.45s (0:02:03)", 1, 0},
		{"3 failed in 0.07s", 0, 0},
		{"4 passed is what we want in 2s", 0, 0}, // a sentence, not the counts line
	} {
		rep, err := Parse(strings.NewReader("FAILED tests/test_a.py::test_x - KeyError: 'k'\n"+tt.line+"\n"), Options{Format: "python"})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Tests.Passed != tt.passed || rep.Tests.Skipped != tt.skip {
			t.Errorf("%q: %d passed, %d skipped; want %d, %d", tt.line, rep.Tests.Passed, rep.Tests.Skipped, tt.passed, tt.skip)
		}
	}
}

// TestJSLocationFromStack: a failure's location is its stack's first frame in
// the repository, not a URL its message quotes (ufo's "john:doe@example.com:1080/path").
func TestJSLocationFromStack(t *testing.T) {
	t.Parallel()
	rep := fixtureReport(t, "js/ufo_trailing_slash_bug.json", "/src/ufo")
	for _, f := range rep.Findings {
		if f.ID == "test/url.test.ts › $URL append" {
			if f.File != "test/url.test.ts" || f.Line != 44 {
				t.Errorf("location %s:%d, want test/url.test.ts:44", f.File, f.Line)
			}
			return
		}
	}
	t.Errorf("no finding for $URL append among %d", len(rep.Findings))
}

// TestPlanRerunFromReports: the rerun commands planned from real reports
// name what the runner selects: jest-junit's file attribute (its classname
// is the test's name), a vitest test with an empty title by its describe
// block's name and a space, as vitest's -t reads it, a JUnit 4
// parameterized test as add[*] for Surefire and Gradle alike.
func TestPlanRerunFromReports(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		file, format, workDir, command string
		want                           []string
		left                           int
	}{
		{"js/jest_junit.xml", "junit", "/src/nodesample", "npx jest --ci --reporters=jest-junit",
			[]string{"--runTestsByPath -t '^(auth login deep equal|auth login throws TypeError|auth login times out|auth login token contains userId)$' jtest/login.test.js"}, 0},
		{"js/vitest_junit.xml", "junit", "/src/nodesample", "vitest run --reporter=junit",
			[]string{"-t '^(auth login deep equal|auth login throws TypeError|auth login times out|auth login token contains userId)$' vtest/login.test.js"}, 0},
		{"java/surefire_calc.xml", "junit", "", "mvn -o -q -B test; cat target/surefire-reports/*.xml",
			[]string{"mvn -o -q -B test '-Dtest=calc.AddTableTest#add[*],calc.CalcTest#addsBig+divides' -Dsurefire.failIfNoSpecifiedTests=false; cat"}, 0},
		{"java/gradle_calc.xml", "junit", "", "gradle --offline -q test; cat build/test-results/test/*.xml",
			[]string{"gradle --offline -q test --tests 'calc.AddTableTest.add[*]' --tests calc.CalcTest.addsBig --tests calc.CalcTest.divides; cat"}, 0},
		{"js/ufo_trailing_slash_bug.json", "vitest-json", "/src/ufo", "./node_modules/.bin/vitest run --reporter=json",
			[]string{"|withTrailingSlash, queryParams: false |", "test/base.test.ts test/join.test.ts test/resolve.test.ts test/trailing-slash.test.ts test/url.test.ts test/utilities.test.ts"}, 0},
	} {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", "fixtures", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Parse(strings.NewReader(string(b)), Options{Format: tt.format, WorkDir: tt.workDir})
			if err != nil {
				t.Fatal(err)
			}
			var tests []evidence.Finding
			for _, f := range rep.Findings {
				if f.Kind != evidence.KindBuild {
					tests = append(tests, f)
				}
			}
			p, err := PlanRerun(sh(tt.command), tests)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(p.Command, w) {
					t.Errorf("command lacks %q:\n%s", w, p.Command)
				}
			}
			if len(p.Left) != tt.left {
				t.Errorf("%d failures left unselected, want %d: %+v", len(p.Left), tt.left, p.Left)
			}
		})
	}
}

// TestPlanRerunJestJUnitWithoutFile: jest-junit without its file attribute
// names no file jest can run: nothing is run again, and the reason says so.
func TestPlanRerunJestJUnitWithoutFile(t *testing.T) {
	t.Parallel()
	rep := fixtureReport(t, "js/jest_junit_nofile.xml", "/src/nodesample")
	if len(rep.Findings) != 4 {
		t.Fatalf("%d findings, want 4", len(rep.Findings))
	}
	_, err := PlanRerun(sh("npx jest --ci --reporters=jest-junit"), rep.Findings)
	if !errors.Is(err, ErrNoSelector) || !strings.Contains(err.Error(), "names no failed test jest can run by name") {
		t.Errorf("PlanRerun: %v", err)
	}
}
