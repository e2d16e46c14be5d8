package gate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseMessages: the lines that continue a finding (mypy's notes, the
// detail lines of a Go build error) are joined to its message, and only to it.
func TestParseMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, format, in string
		want             []string // file:line message
	}{
		{"mypy notes join the error of their file", "mypy", `app.py:3: error: Incompatible types in assignment  [assignment]
app.py:3: note: See https://mypy.rtfd.io/en/stable/_refs.html
other.py:1: note: a note about another file
lib.py:7:5: error: Name "x" is not defined  [name-defined]
Found 2 errors in 2 files (checked 3 source files)
`, []string{
			"app.py:3 Incompatible types in assignment | See https://mypy.rtfd.io/en/stable/_refs.html",
			`lib.py:7 Name "x" is not defined`,
		}},
		{"a note before any error is dropped", "mypy", "app.py:1: note: alone\napp.py:2: error: boom  [misc]\n", []string{"app.py:2 boom"}},
		{"tsc detail lines join their error", "tsc", `src/a.ts(3,5): error TS2322: Type '{ x: string; }' is not assignable to type 'P'.
  Types of property 'x' are incompatible.
    Type 'string' is not assignable to type 'number'.
error TS5023: Unknown compiler option 'foo'.
  Did you mean 'for'?
src/b.ts(1,1): error TS1005: ';' expected.
`, []string{
			"src/a.ts:3 Type '{ x: string; }' is not assignable to type 'P'. | Types of property 'x' are incompatible. | Type 'string' is not assignable to type 'number'.",
			":0 Unknown compiler option 'foo'. | Did you mean 'for'?",
			"src/b.ts:1 ';' expected.",
		}},
		{"go build errors with detail lines", "gotest-json", `{"ImportPath":"m/p [m/p.test]","Action":"build-output","Output":"# m/p [m/p.test]\n"}
{"ImportPath":"m/p [m/p.test]","Action":"build-output","Output":"p/p.go:4:9: cannot use x (variable of type int) as string value in return statement\n"}
{"ImportPath":"m/p [m/p.test]","Action":"build-output","Output":"\thave (int)\n"}
{"ImportPath":"m/p [m/p.test]","Action":"build-output","Output":"\twant (string)\n"}
{"ImportPath":"m/p [m/p.test]","Action":"build-fail"}
{"Action":"start","Package":"m/p"}
{"Action":"output","Package":"m/p","Output":"FAIL\tm/p [build failed]\n"}
{"Action":"fail","Package":"m/p","Elapsed":0,"FailedBuild":"m/p [m/p.test]"}
`, []string{"p/p.go:4 cannot use x (variable of type int) as string value in return statement | have (int) | want (string)"}},
		{"a traceback's last unindented exception line is the message, not the lines after it", "python", `FAIL: test_token (test_auth.TestLogin.test_token)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/src/test_auth.py", line 7, in test_token
    self.assertIn("user42", tok)
AssertionError: 'user42' not found in ''

Stdout:
token issued
----------------------------------------------------------------------
Ran 1 test in 0.001s

FAILED (failures=1)
`, []string{"test_auth.py:7 AssertionError: 'user42' not found in ''"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := Parse(strings.NewReader(tt.in), Options{Format: tt.format, WorkDir: "/src"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range rep.Findings {
				got = append(got, fmt.Sprintf("%s:%d %s", f.File, f.Line, f.Message))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// mypy's JSON columns count from 0 (-1: none); findings count from 1 (0: none).
func TestParseMypyJSONColumns(t *testing.T) {
	t.Parallel()
	in := `{"file": "a.py", "line": 1, "column": -1, "message": "m", "hint": null, "code": "misc", "severity": "error"}
{"file": "a.py", "line": 2, "column": 0, "message": "m", "hint": null, "code": "misc", "severity": "error"}
{"file": "a.py", "line": 3, "column": 11, "message": "m", "hint": "try this", "code": "misc", "severity": "error"}
`
	rep, err := Parse(strings.NewReader(in), Options{Format: "mypy-json", WorkDir: "/src"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%d:%d %q", f.Line, f.Col, f.Message))
	}
	if diff := cmp.Diff([]string{`1:0 "m"`, `2:1 "m"`, `3:12 "m | try this"`}, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// Free-form TAP diagnostics (mocha's reporter) make a failure's message of at
// most four lines, and a message takes no more lines once it is over
// maxMsgBytes bytes.
func TestParseTAPDiagnosticsBounded(t *testing.T) {
	t.Parallel()
	atCap := strings.Repeat("é", maxMsgBytes/2) // maxMsgBytes bytes, half as many runes
	tests := []struct {
		name, diag, want string
	}{
		{"four lines", "  AssertionError: 1 == 2\n  expected 2\n  actual 1\n  more detail\n  and more\n",
			"AssertionError: 1 == 2 | expected 2 | actual 1 | more detail"},
		{"a line at the byte cap takes one more, then none", "  " + atCap + "\n  expected 2\n  actual 1\n",
			atCap + " | expected 2"},
		{"a line over the byte cap takes none", "  " + atCap + "x\n  expected 2\n", atCap + "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := Parse(strings.NewReader("TAP version 13\nnot ok 1 adds\n"+tt.diag+"1..1\n"), Options{Format: "tap", WorkDir: "/src"})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Findings) != 1 {
				t.Fatalf("findings %+v", rep.Findings)
			}
			if got := rep.Findings[0].Message; got != tt.want {
				t.Errorf("message %q, want %q", got, tt.want)
			}
		})
	}
}
