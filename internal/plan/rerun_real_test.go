package plan

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/testenv"
)

// pytestSuite is a pytest file whose test_flaky fails the first time only
// (a flag file), test_broken and one case of test_param every time; the
// failing case's node id holds a space and " - ".
const pytestSuite = `import os
import pytest

def test_ok():
    assert 1 + 1 == 2

def test_flaky():
    first = not os.path.exists("ran")
    open("ran", "w").close()
    assert not first, "fails the first time only"

def test_broken():
    assert [1, 2] == [1, 3]

@pytest.mark.parametrize("x", ["a b", "c - d"])
def test_param(x):
    assert x == "a b"
`

// TestFlakyCheckRealPytest: a failing pytest gate's flaky check, with the
// real pytest, runs the three failed tests again by node id without
// tracebacks or assertion rewriting (--tb=no --assert=plain) and still reads
// which of them failed again: test_flaky passed (flaky), the other two
// count. Under -q pytest's counts line has no "=" rules around it; it is
// read all the same (without it nothing would be called flaky).
func TestFlakyCheckRealPytest(t *testing.T) {
	t.Parallel()
	pytest := testenv.NeedTool(t, "pytest", "pytest-3", "py.test")
	for _, flags := range []string{"-p no:cacheprovider --tb=long", "-q -p no:cacheprovider"} {
		t.Run(flags, func(t *testing.T) {
			t.Parallel()
			dir, logs := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "test_app.py"), []byte(pytestSuite), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := pytest + " " + flags + " test_app.py"
			g := &ProcGates{Specs: []GateSpec{{Name: "tests", Argv: []string{"sh", "-c", cmd}, Command: cmd,
				Required: true, Format: "python", Rerun: gate.RerunFailed}}}
			res, err := g.RunGates(t.Context(), dir, logs, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			var failed, flaky []string
			for _, f := range r.Findings {
				failed = append(failed, f.ID)
			}
			for _, f := range r.Flaky {
				flaky = append(flaky, f.ID)
			}
			slices.Sort(failed)
			if want := []string{"test_app.py::test_broken", "test_app.py::test_param[c - d]"}; !slices.Equal(failed, want) || r.Passed {
				t.Errorf("failures %q (passed %v), want %q", failed, r.Passed, want)
			}
			if want := []string{"test_app.py::test_flaky"}; !slices.Equal(flaky, want) {
				t.Errorf("flaky %q, want %q", flaky, want)
			}
			if !strings.Contains(r.RerunNote, "--tb=no --assert=plain") || !strings.HasSuffix(r.RerunNote, "2 failed again, 1 passed (flaky)") {
				t.Errorf("note %q", r.RerunNote)
			}
			b, err := os.ReadFile(r.RerunLog)
			if err != nil {
				t.Fatal(err)
			}
			if log := string(b); !strings.Contains(log, "2 failed, 1 passed in ") || strings.Contains(log, "FAILURES") {
				t.Errorf("the flaky check ran more than the 3 failed tests, or printed their tracebacks:\n%s", log)
			}
		})
	}
}

// TestFlakyCheckRealGoTestCover: a failing go test gate that writes a
// coverage profile: the flaky check runs the two failed tests again by name,
// without coverage, and reads which failed again (TestFlaky passed); the
// profile stays the gate's own, in which TestOK covered Add.
func TestFlakyCheckRealGoTestCover(t *testing.T) {
	t.Parallel()
	goBin := testenv.NeedTool(t, "go")
	dir := t.TempDir()
	for name, s := range map[string]string{
		"go.mod":  "module example.com/flaky\n\ngo 1.22\n",
		"calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
		"calc_test.go": `package calc

import (
	"os"
	"testing"
)

func TestOK(t *testing.T) {
	if Add(1, 1) != 2 {
		t.Fatal("1+1")
	}
}

func TestFlaky(t *testing.T) {
	if _, err := os.Stat("ran"); err != nil {
		_ = os.WriteFile("ran", nil, 0o644)
		t.Fatal("fails the first time only")
	}
}

func TestBroken(t *testing.T) { t.Fatal("got 1, want 2") }
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := goBin + " test -json -coverprofile=c.out ./..."
	g := &ProcGates{Specs: []GateSpec{{Name: "tests", Argv: []string{"sh", "-c", cmd}, Command: cmd,
		Env: []string{"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod"}, Required: true, Format: "gotest-json", Rerun: gate.RerunFailed}}}
	res, err := g.RunGates(t.Context(), dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if len(r.Findings) != 1 || r.Findings[0].Test != "TestBroken" || len(r.Flaky) != 1 || r.Flaky[0].Test != "TestFlaky" {
		t.Errorf("failures %+v, flaky %+v; want TestBroken failing, TestFlaky flaky", r.Findings, r.Flaky)
	}
	if !strings.HasSuffix(r.RerunNote, "1 failed again, 1 passed (flaky)") || strings.Contains(r.RerunNote, "cover") {
		t.Errorf("note %q", r.RerunNote)
	}
	b, err := os.ReadFile(filepath.Join(dir, "c.out"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "calc.go:3.") || !strings.HasSuffix(strings.TrimSpace(string(b)), " 1") {
		t.Errorf("the coverage profile is not the gate's (Add covered):\n%s", b)
	}
}
