package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/evidence"
)

// TestParseFixtures runs every parser on the real tool outputs copied from
// shared/fixtures/gates (see testdata/PROVENANCE.md) and checks format detection,
// test counts and each finding's kind, id and location.
func TestParseFixtures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, format, workDir, wantFormat string
		wantTests                         evidence.TestCounts
		want                              []string // "kind[ flaky] id file:line"
	}{
		{"go/go_test_json_mixed.jsonl", "auto", "/src/gosample", "gotest-json", evidence.TestCounts{Passed: 8, Failed: 4, Skipped: 1}, []string{
			"test calc.TestLogin calc/calc_test.go:18",
			"test calc.TestTable/2+2 calc/calc_test.go:27",
			"test calc.TestNested/outer/inner_fails calc/calc_test.go:36",
			"crash panicky.TestPanics panicky/p_test.go:9",
		}},
		{"go/go_test_json_timeout.jsonl", "auto", "/src/gosample", "gotest-json", evidence.TestCounts{Passed: 1, Failed: 1, Skipped: 0}, []string{
			"timeout slow.TestHangs slow/s_test.go:11",
		}},
		{"go/go_test_json_osexit.jsonl", "auto", "/src/gosample", "gotest-json", evidence.TestCounts{Passed: 1, Failed: 1, Skipped: 0}, []string{
			"crash exiter.TestLogFatal ",
		}},
		{"go/go_test_json_buildfail.jsonl", "auto", "/src/gosample", "gotest-json", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"build broken broken/b.go:4",
			"build broken broken/b.go:5",
		}},
		{"go/go_test_json_vetfail.jsonl", "auto", "/src/gosample", "gotest-json", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"build vetbad vetbad/v.go:5",
		}},
		{"go/go_test_json_race.jsonl", "auto", "/src/gosample", "gotest-json", evidence.TestCounts{Passed: 0, Failed: 1, Skipped: 0}, []string{
			"crash racy.TestRace racy/r_test.go:13",
		}},
		{"go/go_test_json_failfast.jsonl", "auto", "/src/gosample", "gotest-json", evidence.TestCounts{Passed: 0, Failed: 1, Skipped: 0}, []string{
			"test calc.TestLogin calc/calc_test.go:18",
		}},
		{"go/go_test_json_no_tests_matched.jsonl", "auto", "/src/gosample", "gotest-json", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, nil},
		{"go/gotestsum_flaky_rerun.jsonl", "auto", "/src/gosample", "gotest-json", evidence.TestCounts{Passed: 2, Failed: 0, Skipped: 0}, []string{
			"test flaky flaky.TestFlaky flaky/f_test.go:13",
		}},
		{"go/go_build_json.jsonl", "auto", "/src/gosample", "gotest-json", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"build broken broken/b.go:4",
			"build broken broken/b.go:5",
		}},
		{"go/go_test_plain_mixed.txt", "auto", "/src/gosample", "gotest", evidence.TestCounts{Passed: 0, Failed: 4, Skipped: 0}, []string{
			"test calc.TestLogin calc/calc_test.go:18",
			"test calc.TestTable/2+2 calc/calc_test.go:27",
			"test calc.TestNested/outer/inner_fails calc/calc_test.go:36",
			"crash panicky.TestPanics panicky/p_test.go:9",
		}},
		{"go/go_test_v_mixed.txt", "auto", "/src/gosample", "gotest", evidence.TestCounts{Passed: 8, Failed: 4, Skipped: 1}, []string{
			"test calc.TestLogin calc/calc_test.go:18",
			"test calc.TestTable/2+2 calc/calc_test.go:27",
			"test calc.TestNested/outer/inner_fails calc/calc_test.go:36",
			"crash panicky.TestPanics panicky/p_test.go:9",
		}},
		{"go/go_test_v_timeout.txt", "auto", "/src/gosample", "gotest", evidence.TestCounts{Passed: 1, Failed: 1, Skipped: 0}, []string{
			"timeout slow.TestHangs slow/s_test.go:11",
		}},
		{"go/go_test_plain_buildfail.txt", "auto", "/src/gosample", "gotest", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"build broken broken/b.go:4",
			"build broken broken/b.go:5",
		}},
		{"go/go_vet.txt", "auto", "/src/gosample", "gotest", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"build broken broken/b.go:5",
			"build vetbad vetbad/v.go:5",
		}},
		{"go/go_build_errors.txt", "auto", "/src/gosample", "gotest", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"build broken broken/b.go:4",
			"build broken broken/b.go:5",
		}},
		{"go/go_vet_json.txt", "auto", "/src/gosample", "govet-json", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"lint printf vetbad/v.go:5",
		}},
		{"go/gotestsum_testname.txt", "auto", "/src/gosample", "gotestsum", evidence.TestCounts{Passed: 11, Failed: 4, Skipped: 1}, []string{
			"build broken broken/b.go:4",
			"build broken broken/b.go:5",
			"test calc.TestLogin calc/calc_test.go:18",
			"test calc.TestTable/2+2 calc/calc_test.go:27",
			"test calc.TestNested/outer/inner_fails calc/calc_test.go:36",
			"crash panicky.TestPanics panicky/p_test.go:9",
		}},
		{"go/gotestsum_dots_timeout.txt", "auto", "/src/gosample", "gotestsum", evidence.TestCounts{Passed: 9, Failed: 4, Skipped: 1}, []string{
			"timeout slow.TestHangs ",
			"test calc.TestLogin calc/calc_test.go:18",
			"test calc.TestTable/2+2 calc/calc_test.go:27",
			"test calc.TestNested/outer/inner_fails calc/calc_test.go:36",
		}},
		{"go/gotestsum_rerun_fails.txt", "auto", "/src/gosample", "gotestsum", evidence.TestCounts{Passed: 8, Failed: 3, Skipped: 1}, []string{
			"test calc.TestLogin calc/calc_test.go:18",
			"test calc.TestTable/2+2 calc/calc_test.go:27",
			"test calc.TestNested/outer/inner_fails calc/calc_test.go:36",
		}},
		{"go/gotestsum_flaky_rerun.txt", "auto", "/src/gosample", "gotestsum", evidence.TestCounts{Passed: 2, Failed: 0, Skipped: 0}, []string{
			"test flaky flaky.TestFlaky flaky/f_test.go:13",
		}},
		{"go/golangci_lint_json.json", "auto", "/src/gosample", "golangci-json", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"lint errcheck lintme/l.go:10",
			"lint govet lintme/l.go:11",
			"lint unused lintme/l.go:15",
		}},
		{"go/golangci_lint_json_typecheck.json", "auto", "/src/gosample", "golangci-json", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"build broken broken/b.go:4",
			"build broken broken/b.go:5",
		}},
		{"go/golangci_lint_text.txt", "auto", "/src/gosample", "generic", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"lint errcheck lintme/l.go:10",
			"lint govet lintme/l.go:11",
			"lint unused lintme/l.go:15",
		}},
		{"go/golangci_lint_sarif.sarif", "auto", "/src/gosample", "sarif", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"lint errcheck lintme/l.go:10",
			"lint govet lintme/l.go:11",
			"lint unused lintme/l.go:15",
		}},
		{"go/go_junit_report_gojson_timeout.xml", "auto", "/src/gosample", "junit", evidence.TestCounts{Passed: 1, Failed: 1, Skipped: 0}, []string{
			"timeout example.com/gosample/slow.TestHangs slow/s_test.go:11",
		}},
		{"js/jest_json.json", "auto", "/src/nodesample", "jest-json", evidence.TestCounts{Passed: 1, Failed: 4, Skipped: 2}, []string{
			"test jtest/login.test.js › auth login token contains userId jtest/login.test.js:7",
			"test jtest/login.test.js › auth login throws TypeError jtest/login.test.js:14",
			"test jtest/login.test.js › auth login deep equal jtest/login.test.js:17",
			"timeout jtest/login.test.js › auth login times out jtest/login.test.js:19",
			"build jtest/broken.test.js jtest/broken.test.js",
		}},
		{"js/jest_json_with_location.json", "auto", "/src/nodesample", "jest-json", evidence.TestCounts{Passed: 1, Failed: 4, Skipped: 2}, []string{
			"test jtest/login.test.js › auth login token contains userId jtest/login.test.js:7",
			"test jtest/login.test.js › auth login throws TypeError jtest/login.test.js:14",
			"test jtest/login.test.js › auth login deep equal jtest/login.test.js:17",
			"timeout jtest/login.test.js › auth login times out jtest/login.test.js:19",
			"build jtest/broken.test.js jtest/broken.test.js",
		}},
		{"js/vitest_json.json", "vitest", "/src/nodesample", "vitest-json", evidence.TestCounts{Passed: 1, Failed: 4, Skipped: 2}, []string{
			"build vtest/broken.test.js vtest/broken.test.js:1",
			"test vtest/login.test.js › auth login token contains userId vtest/login.test.js:8",
			"test vtest/login.test.js › auth login throws TypeError vtest/login.test.js:15",
			"test vtest/login.test.js › auth login deep equal vtest/login.test.js:18",
			"test vtest/login.test.js › auth login times out vtest/login.test.js:20",
		}},
		{"js/mocha_json.json", "auto", "/src/nodesample", "mocha-json", evidence.TestCounts{Passed: 1, Failed: 3, Skipped: 2}, []string{
			"test mtest/login.spec.js › auth token contains userId mtest/login.spec.js:5",
			"timeout mtest/login.spec.js › auth times out mtest/login.spec.js",
			"test mtest/login.spec.js › auth nested throws mtest/login.spec.js:11",
		}},
		{"js/jest_junit.xml", "auto", "/src/nodesample", "junit", evidence.TestCounts{Passed: 2, Failed: 4, Skipped: 1}, []string{
			"test auth login token contains userId jtest/login.test.js:7",
			"test auth login throws TypeError jtest/login.test.js:14",
			"test auth login deep equal jtest/login.test.js:17",
			"test auth login times out jtest/login.test.js:19",
		}},
		{"js/vitest_junit.xml", "auto", "/src/nodesample", "junit", evidence.TestCounts{Passed: 1, Failed: 5, Skipped: 2}, []string{
			"build vtest/broken.test.js vtest/broken.test.js:1",
			"test vtest/login.test.js.auth > login > token contains userId vtest/login.test.js:8",
			"test vtest/login.test.js.auth > login > throws TypeError vtest/login.test.js:15",
			"test vtest/login.test.js.auth > login > deep equal vtest/login.test.js:18",
			"test vtest/login.test.js.auth > login > times out vtest/login.test.js:20",
		}},
		{"js/mocha_xunit.xml", "auto", "/src/nodesample", "junit", evidence.TestCounts{Passed: 1, Failed: 3, Skipped: 2}, []string{
			"test auth.token contains userId mtest/login.spec.js:5",
			"test auth.times out mtest/login.spec.js",
			"test auth nested.throws mtest/login.spec.js:11",
		}},
		{"js/eslint_json.json", "auto", "/src/nodesample", "eslint-json", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"lint no-unused-vars src/auth/login.js:1",
			"lint no-unused-vars src/auth/login.js:2",
			"lint no-undef src/auth/login.js:3",
			"build  src/auth/style.js:4",
			"lint no-unused-vars src/auth/token.js:1",
		}},
		{"js/eslint_sarif.sarif", "auto", "/src/nodesample", "sarif", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"lint no-unused-vars src/auth/login.js:1",
			"lint no-unused-vars src/auth/login.js:2",
			"lint no-undef src/auth/login.js:3",
			"lint no-unused-vars src/auth/token.js:1",
		}},
		{"js/tsc_pretty_false.txt", "auto", "/src/nodesample", "tsc", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"type TS2322 ts/login.ts:3",
			"type TS2322 ts/login.ts:5",
			"type TS2345 ts/login.ts:6",
			"type TS2304 ts/login.ts:7",
		}},
		{"js/tsc_pretty_true.txt", "auto", "/src/nodesample", "tsc", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"type TS2322 ts/login.ts:3",
			"type TS2322 ts/login.ts:5",
			"type TS2345 ts/login.ts:6",
			"type TS2304 ts/login.ts:7",
		}},
		{"node/node_test_default_nontty.tap", "auto", "/src/nodetest", "tap", evidence.TestCounts{Passed: 2, Failed: 5, Skipped: 1}, []string{
			"test login returns token containing userId test/login.test.js:7",
			"test deepEqual fails test/login.test.js:11",
			"test inner fails test/login.test.js:22",
			"timeout times out test/login.test.js:25",
			"build test/syntaxerr.test.js test/syntaxerr.test.js:1",
		}},
		{"node/node_test_junit.xml", "auto", "/src/nodetest", "junit", evidence.TestCounts{Passed: 2, Failed: 5, Skipped: 2}, []string{
			"test test.login returns token containing userId test/login.test.js:7",
			"test test.deepEqual fails test/login.test.js:11",
			"test test.inner fails test/login.test.js:22",
			"timeout test.times out ",
			"test test./src/nodetest/test/syntaxerr.test.js ",
		}},
		{"rust/cargo_test_plain_nobt.stdout", "auto", "/src/rustsample", "cargo", evidence.TestCounts{Passed: 2, Failed: 5, Skipped: 1}, []string{
			"test tests::login_token_contains_user src/lib.rs:15",
			"test tests::eq_fails src/lib.rs:19",
			"test tests::panics_with_unwrap src/lib.rs:24",
			"test tests::prints_stdout src/lib.rs:36",
			"test tests::should_panic_but_doesnt src/lib.rs:29",
		}},
		{"rust/cargo_test_compile_error.stderr", "auto", "/src/rustbroken", "cargo", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"build E0277 src/lib.rs:1",
		}},
		{"rust/cargo_build_message_format_json.jsonl", "auto", "/src/rustbroken", "cargo-json", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"build E0277 src/lib.rs:1",
		}},
		{"rust/cargo_test_libtest_junit.stdout", "auto", "/src/rustsample", "junit", evidence.TestCounts{Passed: 2, Failed: 5, Skipped: 0}, []string{
			"test tests.login_token_contains_user src/lib.rs:15",
			"test tests.eq_fails src/lib.rs:19",
			"test tests.prints_stdout src/lib.rs:36",
			"test tests.panics_with_unwrap src/lib.rs:24",
			"test tests.should_panic_but_doesnt ",
		}},
		{"python/mypy_default.txt", "auto", "/src/pysample", "mypy", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"type dict-item typed.py:5",
			"type return-value typed.py:8",
			"type arg-type typed.py:10",
			"type name-defined typed.py:11",
		}},
		{"python/mypy_columns.txt", "auto", "/src/pysample", "mypy", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"type dict-item typed.py:5",
			"type return-value typed.py:8",
			"type arg-type typed.py:10",
			"type name-defined typed.py:11",
		}},
		{"tap/perl_test_more_raw.tap", "auto", "", "tap", evidence.TestCounts{Passed: 2, Failed: 2, Skipped: 0}, []string{
			"test addition is wrong on purpose t/basic.t:4",
			"test token contains userId t/basic.t:5",
		}},
		{"tap/prove_plain.txt", "auto", "", "tap", evidence.TestCounts{Passed: 0, Failed: 2, Skipped: 0}, []string{
			"crash t/dies.t t/dies.t",
			"crash t/dies.t t/dies.t",
			"test addition is wrong on purpose t/basic.t:4",
			"test token contains userId t/basic.t:5",
		}},
		{"tap/prove_v.txt", "auto", "", "tap", evidence.TestCounts{Passed: 3, Failed: 2, Skipped: 0}, []string{
			"crash t/dies.t t/dies.t",
			"crash t/dies.t t/dies.t",
			"test t/basic.t › addition is wrong on purpose t/basic.t:4",
			"test t/basic.t › token contains userId t/basic.t:5",
		}},
		{"js/mocha_tap.tap", "auto", "/src/nodesample", "tap", evidence.TestCounts{Passed: 1, Failed: 3, Skipped: 2}, []string{
			"test auth token contains userId mtest/login.spec.js:5",
			"test auth times out ",
			"test auth nested throws mtest/login.spec.js:11",
		}},
		{"tap/perl_test_more_stdout_only.tap", "auto", "", "tap", evidence.TestCounts{Passed: 2, Failed: 2, Skipped: 0}, []string{
			"test addition is wrong on purpose ",
			"test token contains userId ",
		}},
		{"js/jest_junit_reportTestSuiteErrors.xml", "auto", "/src/nodesample", "junit", evidence.TestCounts{Passed: 2, Failed: 5, Skipped: 1}, []string{
			"test auth login token contains userId jtest/login.test.js:7",
			"test auth login throws TypeError jtest/login.test.js:14",
			"test auth login deep equal jtest/login.test.js:17",
			"test auth login times out jtest/login.test.js:19",
			"build jtest/broken.test.js jtest/broken.test.js",
		}},
		{"go/gotestsum_junit.xml", "auto", "/src/gosample", "junit", evidence.TestCounts{Passed: 8, Failed: 5, Skipped: 1}, []string{
			"build TestMain ",
			"test example.com/gosample/calc.TestLogin calc/calc_test.go:18",
			"test example.com/gosample/calc.TestTable/2+2 calc/calc_test.go:27",
			"test example.com/gosample/calc.TestNested/outer/inner_fails calc/calc_test.go:36",
			"crash example.com/gosample/panicky.TestPanics panicky/p_test.go:9",
		}},
		{"go/go_junit_report.xml", "auto", "/src/gosample", "junit", evidence.TestCounts{Passed: 6, Failed: 4, Skipped: 1}, []string{
			"test example.com/gosample/calc.TestLogin calc/calc_test.go:18",
			"test example.com/gosample/calc.TestTable/2+2 calc/calc_test.go:27",
			"test example.com/gosample/calc.TestNested/outer/inner_fails calc/calc_test.go:36",
			"test example.com/gosample/panicky.TestPanics ",
		}},
		{"js/eslint_stylish.txt", "auto", "/src/nodesample", "generic", evidence.TestCounts{Passed: 0, Failed: 0, Skipped: 0}, []string{
			"lint no-unused-vars src/auth/login.js:1",
			"lint no-unused-vars src/auth/login.js:2",
			"lint no-undef src/auth/login.js:3",
			"build  src/auth/style.js:4",
			"lint no-unused-vars src/auth/token.js:1",
		}},
		{"python/unittest_v.txt", "auto", "/src/pysample", "python", evidence.TestCounts{Passed: 1, Failed: 3, Skipped: 2}, []string{
			"crash test_auth.TestLogin.test_error test_auth.py:13",
			"test test_auth.TestLogin.test_subtests (i=2) test_auth.py:26",
			"test test_auth.TestLogin.test_token_contains_user test_auth.py:7",
		}},
		{"python/unittest_discover_importerror.txt", "auto", "/src/pysample", "python", evidence.TestCounts{Passed: 1, Failed: 3, Skipped: 2}, []string{
			"crash test_auth.TestLogin.test_error test_auth.py:13",
			"build test_importerr test_importerr.py:1",
			"test test_auth.TestLogin.test_subtests (i=2) test_auth.py:26",
			"test test_auth.TestLogin.test_token_contains_user test_auth.py:7",
		}},
		{"js/jest_default_reporter.txt", "auto", "/src/nodesample", "js-text", evidence.TestCounts{Passed: 1, Failed: 4, Skipped: 2}, []string{
			"test jtest/login.test.js › auth login token contains userId jtest/login.test.js:7",
			"test jtest/login.test.js › auth login throws TypeError jtest/login.test.js:14",
			"test jtest/login.test.js › auth login deep equal jtest/login.test.js:17",
			"timeout jtest/login.test.js › auth login times out jtest/login.test.js:19",
			"build jtest/broken.test.js jtest/broken.test.js",
		}},
		{"js/vitest_default.txt", "auto", "/src/nodesample", "js-text", evidence.TestCounts{Passed: 1, Failed: 4, Skipped: 2}, []string{
			"build vtest/broken.test.js vtest/broken.test.js",
			"test vtest/login.test.js › auth login token contains userId vtest/login.test.js:8",
			"test vtest/login.test.js › auth login throws TypeError vtest/login.test.js:15",
			"test vtest/login.test.js › auth login deep equal vtest/login.test.js:18",
			"timeout vtest/login.test.js › auth login times out vtest/login.test.js:20",
		}},
		{"node/node_test_spec.txt", "auto", "/src/nodetest", "spec-text", evidence.TestCounts{Passed: 2, Failed: 4, Skipped: 2}, []string{
			"test login returns token containing userId test/login.test.js:7",
			"test deepEqual fails test/login.test.js:11",
			"test inner fails test/login.test.js:22",
			"timeout times out ",
			"build test/syntaxerr.test.js test/syntaxerr.test.js",
		}},
		{"js/mocha_spec.txt", "auto", "/src/nodesample", "spec-text", evidence.TestCounts{Passed: 1, Failed: 3, Skipped: 2}, []string{
			"test auth token contains userId mtest/login.spec.js:5",
			"timeout auth times out ",
			"test auth nested throws mtest/login.spec.js:11",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(filepath.Join("testdata", "fixtures", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rep, err := Parse(f, Options{Format: tt.format, WorkDir: tt.workDir, Module: "example.com/gosample"})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if rep.Format != tt.wantFormat {
				t.Errorf("format = %q, want %q", rep.Format, tt.wantFormat)
			}
			if diff := cmp.Diff(tt.wantTests, rep.Tests); diff != "" {
				t.Errorf("tests (-want +got):\n%s", diff)
			}
			var got []string
			for _, f := range rep.Findings {
				got = append(got, summary(f))
				if f.Message == "" {
					t.Errorf("finding %s has no message", summary(f))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func summary(f evidence.Finding) string {
	loc := f.File
	if f.Line > 0 {
		loc += ":" + strconv.Itoa(f.Line)
	}
	flaky := ""
	if f.Flaky {
		flaky = " flaky"
	}
	return fmt.Sprintf("%s%s %s %s", f.Kind, flaky, f.ID, loc)
}

func TestFormatName(t *testing.T) {
	t.Parallel()
	for _, f := range append([]string{"auto"}, Formats()...) {
		if got, ok := FormatName(f); !ok || got != f {
			t.Errorf("FormatName(%q) = %q, %v; want itself", f, got, ok)
		}
	}
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"", "auto", true},
		{" Go-Test-JSON ", "gotest-json", true},
		{"pytest", "python", true},
		{"jest", "jest-json", true},
		{"gotest-jsn", "gotest-jsn", false},
		{"yaml", "yaml", false},
	}
	for _, tt := range tests {
		if got, ok := FormatName(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("FormatName(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if _, err := Parse(strings.NewReader("ok\n"), Options{Format: "gotest-jsn"}); err == nil || !strings.Contains(err.Error(), `unknown format "gotest-jsn"`) {
		t.Errorf("Parse with an unknown format: error %v", err)
	}
}
