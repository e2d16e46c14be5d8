package gate

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/evidence"
)

// TestParseProblems checks that what a parser cannot read is named in the
// report, as gotestsum keeps the lines it could not parse, and only then.
func TestParseProblems(t *testing.T) {
	t.Parallel()
	const pass = `{"Action":"run","Package":"m/p","Test":"TestA"}
{"Action":"pass","Package":"m/p","Test":"TestA","Elapsed":0.1}
{"Action":"pass","Package":"m/p","Elapsed":0.2}
`
	tests := []struct {
		name, format, out string
		want              []string
		unreadable        bool
	}{
		{"clean stream", "gotest-json", pass, nil, false},
		{"empty output", "gotest-json", "", nil, false},
		{"stray lines", "gotest-json", "go: downloading example.com/x v1.0.0\n" + pass + "something else\n\n",
			[]string{`2 lines could not be parsed as gotest-json: "go: downloading example.com/x v1.0.0"`}, false},
		{"a cut event", "gotest-json", pass + `{"Action":"output","Package":"m/p","Out` + "\n",
			[]string{`1 line could not be parsed as gotest-json: "{\"Action\":\"output\",\"Package\":\"m/p\",\"Out"`}, false},
		{"build errors as text are read", "gotest-json", "# m/p\np/a.go:3:2: undefined: x\n" + `{"Action":"fail","Package":"m/p","FailedBuild":"m/p"}` + "\n", nil, false},
		{"text where JSON was promised", "gotest-json", "ok  \tm/p\t0.1s\nPASS\n",
			[]string{"nothing in the output could be read as gotest-json; it was read as plain text"}, true},
		{"not a jest report", "jest-json", "hello world\n",
			[]string{"nothing in the output could be read as jest-json; it was read as plain text"}, true},
		{"a cut jest report", "jest-json", `{"numFailedTests":0,"testResults":[{"name":"a.test.js",`,
			[]string{"nothing in the output could be read as jest-json (unexpected EOF); it was read as plain text"}, true},
		{"an eslint report cut after its first file", "eslint-json", `[{"filePath":"/src/a.js","messages":[{"ruleId":"no-undef","severity":2,"message":"x is not defined","line":1,"column":1}]},{"filePath":`,
			[]string{"the output is not valid eslint-json: unexpected EOF"}, false},
		{"text formats have no such problem", "gotest", "whatever this is\n", nil, false},
		{"nor does generic", "generic", "whatever this is\n", nil, false},
		{"nor detection of text", "auto", "whatever this is\n", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := Parse(strings.NewReader(tt.out), Options{Format: tt.format})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, rep.Problems); diff != "" {
				t.Errorf("Problems (-want +got):\n%s", diff)
			}
			if rep.Unreadable != tt.unreadable {
				t.Errorf("Unreadable = %v, want %v", rep.Unreadable, tt.unreadable)
			}
		})
	}
}

// TestParseReadError: output cut by a failing read is an error of the read,
// not a problem of the format (the parser's own error is not named).
func TestParseReadError(t *testing.T) {
	t.Parallel()
	broken := errors.New("device gone")
	r := io.MultiReader(strings.NewReader(`[{"filePath":"/src/a.js","messages":[]},{"filePath":`), iotest.ErrReader(broken))
	rep, err := Parse(r, Options{Format: "eslint-json"})
	if !errors.Is(err, broken) {
		t.Errorf("error %v, want the read's", err)
	}
	if len(rep.Problems) != 0 {
		t.Errorf("Problems %q, want none", rep.Problems)
	}
}

// TestJudgeParseProblems: a gate whose output could not be read is never green
// by its exit code alone, and its parse problems reach the result.
func TestJudgeParseProblems(t *testing.T) {
	t.Parallel()
	g := Gate{Name: "tests", Command: "go test -json ./...", Required: true, Format: "gotest-json"}
	unreadable := Report{Format: "gotest-json", Tail: "ok m/p 0.1s\nPASS", Unreadable: true,
		Problems: []string{"nothing in the output could be read as gotest-json; it was read as plain text"}}
	partial := Report{Format: "gotest-json", Parsed: true, Problems: []string{`1 line could not be parsed as gotest-json: "x"`}, Dropped: 3}

	res := Judge(g, 0, unreadable, nil)
	if res.Passed || !res.Infra || res.ExitCode != 0 || !strings.Contains(res.InfraReason, "exit 0, but nothing in the output could be read as gotest-json") ||
		len(res.ParseErrors) != 1 {
		t.Errorf("exit 0, unreadable: %+v; want an infra failure naming the problem", res)
	}
	if out := Render([]evidence.GateResult{res}, nil, RenderOptions{}); !strings.Contains(out, "tests could not be judged: exit 0, but nothing") {
		t.Errorf("render of an unreadable gate:\n%s", out)
	}

	res = Judge(g, 1, unreadable, nil)
	if res.Passed || res.Infra || len(res.Findings) != 1 || res.Findings[0].Kind != evidence.KindGate ||
		!strings.Contains(res.Findings[0].Message, "last output: ok m/p 0.1s | PASS") || len(res.ParseErrors) != 1 {
		t.Errorf("exit 1, unreadable: %+v; want a failure with the raw tail as its message", res)
	}
	out := Render([]evidence.GateResult{res}, nil, RenderOptions{})
	if !strings.Contains(out, "\nnote: nothing in the output could be read as gotest-json") {
		t.Errorf("render of a failing gate with parse problems lacks the note:\n%s", out)
	}

	res = Judge(g, 0, partial, nil)
	if !res.Passed || res.Infra || res.Dropped != 3 || len(res.ParseErrors) != 1 {
		t.Errorf("exit 0, partly unreadable: %+v; want a pass that carries its problems", res)
	}
	if got, want := res.OutputProblems(), `1 line could not be parsed as gotest-json: "x"; 3 more findings left out`; got != want {
		t.Errorf("OutputProblems = %q, want %q", got, want)
	}
	if got := Judge(g, 0, Report{Parsed: true}, nil).OutputProblems(); got != "" {
		t.Errorf("OutputProblems of a clean gate = %q", got)
	}
}
