package gate

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/evidence"
)

// TestRenderNamesFailuresFile: feedback that leaves failures out names the
// file that lists them all, within the cap and instead of the log; feedback
// that tells every failure whole does not.
func TestRenderNamesFailuresFile(t *testing.T) {
	t.Parallel()
	const path = ".agentloop/runs/r/1/iter-001/gates/tests.failures.txt"
	big := csvLike(33)
	big.FailuresPath = path
	got := Render([]evidence.GateResult{big}, nil, RenderOptions{})
	if !strings.Contains(got, "\nAll 33 failures, each with its message: "+path) {
		t.Errorf("the failures file is not named:\n%s", got)
	}
	if n := utf8.RuneCountInString(got); n > DefaultMaxLength {
		t.Errorf("%d runes, over the cap:\n%s", n, got)
	}
	if strings.Contains(got, "full log") {
		t.Errorf("the log is named beside the failures file:\n%s", got)
	}
	small := csvLike(1)
	small.FailuresPath = path
	if got := Render([]evidence.GateResult{small}, nil, RenderOptions{}); strings.Contains(got, path) {
		t.Errorf("a failure told whole names the failures file:\n%s", got)
	}
}

// TestFailureList: the failures file lists every failure with its whole
// message, the baseline's and the flaky ones apart.
func TestFailureList(t *testing.T) {
	t.Parallel()
	r := csvLike(33)
	r.Preexisting = []evidence.Finding{{Kind: evidence.KindTest, ID: "csv.TestOld", Message: "old failure"}}
	r.Flaky = []evidence.Finding{{Kind: evidence.KindTest, ID: "csv.TestFlaky", Message: "timing"}}
	got := FailureList(r)
	for _, f := range r.Findings {
		if !strings.Contains(got, f.ID+" (reader_test.go:443): "+f.Message+"\n") {
			t.Errorf("%s with its message missing:\n%s", f.ID, got)
		}
	}
	for _, want := range []string{"Gate tests (go test ./...): 33 failures; its whole output: " + r.LogPath + "\n",
		preHeading + "\n1. TEST csv.TestOld: old failure\n", "not counted):\n1. TEST csv.TestFlaky: timing\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if got := FailureList(evidence.GateResult{Name: "tests", Passed: true}); got != "" {
		t.Errorf("a gate with no failure lists %q", got)
	}
}
