package gate

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseSynthetic covers documented shapes no fixture run produced here.
func TestParseSynthetic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, format, in, wantFormat string
		want                         []string
	}{
		{"surefire rerun and flaky", "auto", `<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="com.x.LoginTest" tests="3" failures="1">
  <properties><property name="java.version" value="21"/></properties>
  <testcase name="flaky" classname="com.x.LoginTest" time="0.1">
    <flakyFailure message="expected:&lt;1&gt; but was:&lt;2&gt;" type="java.lang.AssertionError"><stackTrace>at com.x.LoginTest.flaky(LoginTest.java:13)</stackTrace></flakyFailure>
  </testcase>
  <testcase name="broken" classname="com.x.LoginTest" time="0.1">
    <failure message="token missing" type="java.lang.AssertionError">java.lang.AssertionError: token missing
	at com.x.LoginTest.broken(LoginTest.java:20)</failure>
    <rerunFailure message="token missing" type="java.lang.AssertionError"/>
  </testcase>
  <testcase name="ok" classname="com.x.LoginTest" time="0.1"/>
</testsuite>`, "junit", []string{"test flaky com.x.LoginTest.flaky ", "test com.x.LoginTest.broken LoginTest.java:20"}},
		{"pytest xunit1 with file and line", "auto", `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1" failures="1" tests="3">
<testcase classname="tests.test_auth" name="test_login" file="tests/test_auth.py" line="11" time="0.001"><failure message="AssertionError: assert 'tok-X' == 'user42'">def test_login():
&gt;       assert login() == "user42"
E       AssertionError
tests/test_auth.py:12: AssertionError</failure></testcase>
<testcase classname="tests.test_auth" name="test_setup" file="tests/test_auth.py" line="20" time="0.001"><error message="failed on setup with &quot;KeyError&quot;">fixture error</error></testcase>
<testcase classname="tests.test_auth" name="test_skip" file="tests/test_auth.py" line="30"><skipped type="pytest.skip" message="no db"/></testcase>
</testsuite></testsuites>`, "junit", []string{"test tests.test_auth.test_login tests/test_auth.py:11", "crash tests.test_auth.test_setup tests/test_auth.py:20"}},
		{"testcases directly under testsuites, two documents", "junit", `<?xml version="1.0"?>
<testsuites><testcase name="top fails" classname="test" time="0.1"><failure message="boom" type="testCodeFailure"/></testcase>
<testsuite name="suite"><testcase name="inner ok" classname="test"/></testsuite></testsuites>
<?xml version="1.0"?>
<testsuites><testsuite name="b"><testcase name="second doc" classname="m"><failure/></testcase></testsuite></testsuites>`, "junit", []string{"test test.top fails ", "test m.second doc "}},
		{"ruff json", "auto", `[{"cell":null,"code":"F401","end_location":{"column":10,"row":1},"filename":"/src/py/app.py","fix":null,"location":{"column":8,"row":1},"message":"` + "`os`" + ` imported but unused","noqa_row":1,"url":"https://docs.astral.sh/ruff/rules/unused-import"},
{"cell":null,"code":null,"end_location":{"column":1,"row":3},"filename":"/src/py/bad.py","fix":null,"location":{"column":5,"row":3},"message":"SyntaxError: Expected an expression","noqa_row":null,"url":null}]`, "ruff-json", []string{"lint F401 app.py:1", "build  bad.py:3"}},
		{"mypy json with a text syntax error", "mypy-json", `{"file": "typed.py", "line": 8, "column": 11, "message": "Incompatible return value type (got \"int\", expected \"str\")", "hint": null, "code": "return-value", "severity": "error"}
{"file": "typed.py", "line": 8, "column": 11, "message": "a note", "hint": null, "code": null, "severity": "note"}
broken.py:3: error: invalid syntax  [syntax]
`, "mypy-json", []string{"type return-value typed.py:8", "build syntax broken.py:3"}},
		{"ANSI in tsc pretty output", "auto", "\x1b[96mts/a.ts\x1b[0m:\x1b[93m3\x1b[0m:\x1b[93m5\x1b[0m - \x1b[91merror\x1b[0m\x1b[90m TS2322: \x1b[0mType 'string' is not assignable to type 'number'.\n", "tsc", []string{"type TS2322 ts/a.ts:3"}},
		{"generic file:line and error lines", "auto", "make: building\nsrc/main.c:12:5: error: expected ';' before '}' token\nError: something broke\n", "generic", []string{"build  src/main.c:12", "build  "}},
		{"pytest text with -rA summary", "auto", `============================= test session starts ==============================
collected 4 items

tests/test_auth.py F.s                                                   [ 75%]
tests/test_api.py E                                                      [100%]

==================================== ERRORS ====================================
_______________________ ERROR at setup of test_request ________________________
    @pytest.fixture
    def client():
>       raise KeyError("db")
E       KeyError: 'db'

tests/conftest.py:5: KeyError
=================================== FAILURES ===================================
__________________________________ test_login __________________________________

    def test_login():
>       assert login("u") == "user42"
E       AssertionError: assert 'tok-X' == 'user42'
E         - user42
E         + tok-X

tests/test_auth.py:12: AssertionError
=========================== short test summary info ============================
FAILED tests/test_auth.py::test_login - AssertionError: assert 'tok-X' == 'user42'
ERROR tests/test_api.py::test_request - KeyError: 'db'
============== 1 failed, 1 passed, 1 skipped, 1 error in 0.12s ===============
`, "python", []string{"test tests/test_auth.py::test_login tests/test_auth.py:12", "crash tests/test_api.py::test_request tests/test_api.py"}},
		{"go test -json 2>&1 with build errors as text", "gotest-json", "# example.com/m/broken\nbroken/b.go:4:2: declared and not used: x\n" +
			`{"Action":"start","Package":"example.com/m/broken"}
{"Action":"output","Package":"example.com/m/broken","Output":"FAIL\texample.com/m/broken [build failed]\n"}
{"Action":"fail","Package":"example.com/m/broken","Elapsed":0}
`, "gotest-json", []string{"build broken broken/b.go:4"}},
		{"go test -json stream cut while a test runs", "auto", `{"Action":"start","Package":"m/p"}
{"Action":"run","Package":"m/p","Test":"TestA"}
{"Action":"run","Package":"m/p","Test":"TestA/sub"}
{"Action":"output","Package":"m/p","Test":"TestA/sub","Output":"working\n"}
`, "gotest-json", []string{"crash p.TestA/sub "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := Parse(strings.NewReader(tt.in), Options{Format: tt.format, WorkDir: "/src/py"})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Format != tt.wantFormat {
				t.Errorf("format = %q, want %q", rep.Format, tt.wantFormat)
			}
			var got []string
			for _, f := range rep.Findings {
				got = append(got, summary(f))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseHugeLine feeds one 64 MiB line to every parser: it is cut, not held.
func TestParseHugeLine(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("slow")
	}
	for _, name := range []string{"auto", "gotest-json", "gotest", "tap", "cargo", "generic", "junit"} {
		r := io.MultiReader(strings.NewReader("src/a.go:1:2: "), io.LimitReader(zeroes{}, 16<<20), strings.NewReader("\nFAIL\n"))
		rep, err := Parse(r, Options{Format: name})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range rep.Findings {
			if len(f.Message) > 4*maxMsgBytes {
				t.Errorf("%s: message of %d bytes", name, len(f.Message))
			}
		}
		if len(rep.Tail) > 20*400 {
			t.Errorf("%s: tail of %d bytes", name, len(rep.Tail))
		}
	}
}

type zeroes struct{}

func (zeroes) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

func TestFeedbackCommand(t *testing.T) {
	t.Parallel()
	in := `{"Action":"run","Package":"m/p","Test":"TestA"}
{"Action":"output","Package":"m/p","Test":"TestA","Output":"    a_test.go:7: got 1, want 2\n"}
{"Action":"fail","Package":"m/p","Test":"TestA","Elapsed":0}
{"Action":"fail","Package":"m/p","Elapsed":0}
`
	var out bytes.Buffer
	if err := FeedbackCommand(strings.NewReader(in), &out, FeedbackOptions{Name: "tests", ExitCode: 1}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"tests failed (exit 1): 1 failing test\n", "1. TEST p.TestA (a_test.go:7): got 1, want 2"} {
		if !strings.Contains(got, want) {
			t.Errorf("feedback %q lacks %q", got, want)
		}
	}
	out.Reset()
	if err := FeedbackCommand(strings.NewReader(in), &out, FeedbackOptions{JSON: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"key": "TEST|go|p.TestA"`) || !strings.Contains(out.String(), `"passed": false`) {
		t.Errorf("json: %s", out.String())
	}
	out.Reset()
	if err := FeedbackCommand(strings.NewReader(in), &out, FeedbackOptions{Name: "tests", ExitCode: -1}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "tests failed: 1 failing test") {
		t.Errorf("unknown exit: %q", got)
	}
	if err := FeedbackCommand(strings.NewReader(in), &out, FeedbackOptions{Format: "nope"}); err == nil {
		t.Error("unknown format: no error")
	}
}
