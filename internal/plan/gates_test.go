package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/loop"
)

// TestFlakyCheckModes: what a failing gate runs again under each rerun mode.
// The gate prints go test's text output: TestClock fails the first time only
// (a flag file), TestAdd every time. The command is a script, which agentloop
// cannot rewrite: rerun: failed runs nothing again and says why; whole runs
// the script again (TestClock flaky); off runs nothing.
func TestFlakyCheckModes(t *testing.T) {
	t.Parallel()
	script := `if [ -f flag ]; then clock='--- PASS: TestClock (0.00s)'; else touch flag; clock='--- FAIL: TestClock (0.00s)'; fi
printf '=== RUN   TestAdd\n    calc_test.go:9: got 1, want 2\n--- FAIL: TestAdd (0.00s)\n%s\nFAIL\nFAIL\tm/calc\t0.01s\n' "$clock"
echo run >> runs
exit 1`
	for _, tt := range []struct {
		mode  string
		runs  int
		flaky int
		note  string
	}{
		{gate.RerunFailed, 1, 0, "not run again: cannot select tests by name: ./gate.sh is not a test runner agentloop can rewrite"},
		{"", 1, 0, "not run again: cannot select tests by name"},
		{gate.RerunWhole, 2, 1, "ran the whole command again: 1 failed again, 1 passed (flaky)"},
		{gate.RerunOff, 1, 0, "not run again (rerun: off): every failure counts"},
	} {
		t.Run("rerun "+tt.mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "gate.sh"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			g := &ProcGates{Specs: []GateSpec{{Name: "tests", Argv: []string{"sh", "-c", "./gate.sh"}, Command: "./gate.sh",
				Required: true, Format: "gotest", Rerun: tt.mode}}}
			res, err := g.RunGates(t.Context(), dir, t.TempDir(), nil)
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			b, _ := os.ReadFile(filepath.Join(dir, "runs"))
			if runs := strings.Count(string(b), "run"); runs != tt.runs {
				t.Errorf("the gate ran %d times, want %d", runs, tt.runs)
			}
			if len(r.Flaky) != tt.flaky || r.Passed {
				t.Errorf("flaky %d, passed %v; want %d flaky, failed", len(r.Flaky), r.Passed, tt.flaky)
			}
			if !strings.Contains(r.RerunNote, tt.note) {
				t.Errorf("note %q, want %q", r.RerunNote, tt.note)
			}
			if tt.runs == 2 && (r.RerunDuration <= 0 || !strings.HasSuffix(r.RerunLog, "tests.rerun.log")) {
				t.Errorf("the rerun's time %v and log %q are not kept", r.RerunDuration, r.RerunLog)
			}
		})
	}
}

// TestFlakyCheckRepeats: a failure that fails as it did in the previous run,
// whose flaky check ran it again, is not run again; a new failure, or the
// same test failing another way, is. TestClock fails the first time only,
// TestAdd every time with the message in the file msg.
func TestFlakyCheckRepeats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `if [ -f flag ]; then clock='--- PASS: TestClock (0.00s)'; else touch flag; clock='--- FAIL: TestClock (0.00s)'; fi
printf '=== RUN   TestAdd\n    calc_test.go:9: %s\n--- FAIL: TestAdd (0.00s)\n%s\nFAIL\nFAIL\tm/calc\t0.01s\n' "$(cat msg)" "$clock"
echo run >> runs
exit 1`
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("gate.sh", script)
	write("msg", "got 1, want 2")
	g := &ProcGates{Specs: []GateSpec{{Name: "tests", Argv: []string{"sh", "-c", "./gate.sh"}, Command: "./gate.sh",
		Required: true, Format: "gotest", Rerun: gate.RerunWhole}}}
	for i, tt := range []struct {
		msg        string
		runs, fail int
		note       string
	}{
		{"", 2, 1, "ran the whole command again: 1 failed again, 1 passed (flaky)"},
		{"", 3, 1, "1 failure failing as in the previous run, whose flaky check ran them again, not run again: they count"},
		{"got 3, want 2", 4, 1, "1 failure failing as in the previous run"}, // numbers are masked: the same failure
		{"unexpected nil", 6, 1, "ran the whole command again: 1 failed again, 0 passed (flaky)"},
	} {
		if tt.msg != "" {
			write("msg", tt.msg)
		}
		res, err := g.RunGates(t.Context(), dir, t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		r := res[0]
		b, _ := os.ReadFile(filepath.Join(dir, "runs"))
		if runs := strings.Count(string(b), "run"); runs != tt.runs || len(r.Findings) != tt.fail || r.Passed {
			t.Errorf("run %d: the gate has run %d times, %d failures (passed %v); want %d times, %d failures", i+1, runs, len(r.Findings), r.Passed, tt.runs, tt.fail)
		}
		if !strings.Contains(r.RerunNote, tt.note) {
			t.Errorf("run %d: note %q, want %q", i+1, r.RerunNote, tt.note)
		}
	}
}

// TestFlakyCheckAfterBaseline: failures the baseline's flaky check confirmed
// are the baseline's own in the first iteration: its gate runs once, with no
// flaky check; a failure new in the iteration is the only one run again.
func TestFlakyCheckAfterBaseline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `printf '=== RUN   TestAdd\n    calc_test.go:9: got 1, want 2\n--- FAIL: TestAdd (0.00s)\n'
if [ -f new ]; then printf '=== RUN   TestSub\n    calc_test.go:19: got 3, want 0\n--- FAIL: TestSub (0.00s)\n'; fi
printf 'FAIL\nFAIL\tm/calc\t0.01s\n'
echo run >> runs
exit 1`
	if err := os.WriteFile(filepath.Join(dir, "gate.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	g := &ProcGates{Specs: []GateSpec{{Name: "tests", Argv: []string{"sh", "-c", "./gate.sh"}, Command: "./gate.sh",
		Required: true, Format: "gotest", Rerun: gate.RerunWhole}}}
	runs := func() int {
		b, _ := os.ReadFile(filepath.Join(dir, "runs"))
		return strings.Count(string(b), "run")
	}
	base, err := g.RunGates(t.Context(), dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if runs() != 2 || len(base[0].Findings) != 1 {
		t.Fatalf("baseline: %d runs, %d failures; want 2 runs (the flaky check), 1 failure", runs(), len(base[0].Findings))
	}
	for i, tt := range []struct {
		newFailure      bool
		runs, fail, pre int
		note            string
	}{
		{false, 3, 0, 1, ""},
		{true, 5, 1, 1, "ran the whole command again: 1 failed again, 0 passed (flaky)"},
	} {
		if tt.newFailure {
			if err := os.WriteFile(filepath.Join(dir, "new"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, err := g.RunGates(t.Context(), dir, t.TempDir(), base)
		if err != nil {
			t.Fatal(err)
		}
		r := res[0]
		if runs() != tt.runs || len(r.Findings) != tt.fail || len(r.Preexisting) != tt.pre || r.RerunNote != tt.note {
			t.Errorf("iteration %d: %d runs, %d failures, %d the baseline's, note %q; want %d, %d, %d, %q",
				i+1, runs(), len(r.Findings), len(r.Preexisting), r.RerunNote, tt.runs, tt.fail, tt.pre, tt.note)
		}
	}
}

// TestGateFailuresFile: a failing gate's failures are listed whole in
// NAME.failures.txt beside its log, every failing test with its message,
// named in the result relative to the work tree, and redacted: a secret the
// output escapes (go test -json writes & as \u0026) is not in it once the
// parser decoded it, nor in the result's findings.
func TestGateFailuresFile(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t&tok3n-value"
	dir := t.TempDir()
	logDir := filepath.Join(dir, ".agentloop", "runs", "r", "1", "iter-001", "gates")
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		t.Fatal(err)
	}
	script := `i=0
while [ $i -lt 33 ]; do
  printf '{"Action":"output","Package":"m/csv","Test":"TestRead/Case%02d","Output":"    reader_test.go:443: ReadAll() = %d, key s3cr3t\\u0026tok3n-value\\n"}\n' $i $i
  printf '{"Action":"fail","Package":"m/csv","Test":"TestRead/Case%02d"}\n' $i
  i=$((i+1))
done
printf '{"Action":"fail","Package":"m/csv","Test":"TestRead"}\n{"Action":"fail","Package":"m/csv"}\n'
exit 1`
	if err := os.WriteFile(filepath.Join(dir, "gate.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	g := &ProcGates{
		Specs: []GateSpec{{Name: "tests", Argv: []string{"sh", "./gate.sh"}, Required: true, Format: "gotest-json", Rerun: gate.RerunOff}},
		Env:   append(os.Environ(), "CSV_TOKEN="+secret),
	}
	res, err := g.RunGates(t.Context(), dir, logDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if want := ".agentloop/runs/r/1/iter-001/gates/tests.failures.txt"; r.FailuresPath != want {
		t.Fatalf("FailuresPath %q, want %q", r.FailuresPath, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, r.FailuresPath))
	if err != nil {
		t.Fatal(err)
	}
	list := string(b)
	for i := range 33 {
		if want := fmt.Sprintf("csv.TestRead/Case%02d (reader_test.go:443): ReadAll() = %d, key [REDACTED:$CSV_TOKEN]\n", i, i); !strings.Contains(list, want) {
			t.Errorf("the list lacks %q:\n%s", want, list)
		}
	}
	if strings.Contains(list, secret) {
		t.Errorf("the secret is in the list:\n%s", list)
	}
	// the result itself (the feedback's, the state's, the report's) is redacted
	for _, f := range r.Findings {
		if strings.Contains(f.Message, secret) || strings.Contains(f.Key, secret) || strings.Contains(f.ID, "Case") && !strings.Contains(f.Message, "[REDACTED:$CSV_TOKEN]") {
			t.Errorf("finding %s: message %q, key %q", f.ID, f.Message, f.Key)
		}
	}
}

// TestRerunCommandRedacted: the command line of a gate's flaky check, which
// agentloop rewrites from the gate's own, is redacted like the gate's: a
// token written in it is not in the result the state and the prompt show.
func TestRerunCommandRedacted(t *testing.T) {
	t.Parallel()
	dir, bin := t.TempDir(), t.TempDir()
	fake := `#!/bin/sh
printf '=== RUN   TestAdd\n    calc_test.go:9: got 1, want 2\n--- FAIL: TestAdd (0.00s)\nFAIL\nFAIL\tm/calc\t0.01s\n'
exit 1
`
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	const token = "ghp_R8xk2Lq9VwZ3mN7pT4sY6bC1dF5gH0jK2aE9"
	g := &ProcGates{Specs: []GateSpec{{Name: "tests", Argv: []string{filepath.Join(bin, "go"), "test", "-ldflags=-X main.token=" + token, "./..."},
		Command: "go test -ldflags=-X main.token=[REDACTED] ./...", Required: true, Format: "gotest"}}}
	res, err := g.RunGates(t.Context(), dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; !strings.Contains(r.RerunNote, "TestAdd") || strings.Contains(fmt.Sprintf("%+v", r), token) {
		t.Errorf("the flaky check's result holds the token, or it ran nothing again: %+v", r)
	}
}

// TestGateStartTold: who watches the gates is told of each gate that starts
// and how long it took when it last ran whole, to tell a hang; the first
// time, the baseline's time, if any.
func TestGateStartTold(t *testing.T) {
	t.Parallel()
	type start struct {
		name    string
		usually time.Duration
	}
	var told []start
	ctx := loop.WithGateStart(t.Context(), func(name string, usually time.Duration) { told = append(told, start{name, usually}) })
	g := &ProcGates{Specs: []GateSpec{{Name: "tests", Argv: []string{"true"}, Command: "true", Required: true}}}
	base := []evidence.GateResult{{Name: "tests", Duration: 40 * time.Second}}
	first, err := g.RunGates(ctx, t.TempDir(), t.TempDir(), base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.RunGates(ctx, t.TempDir(), t.TempDir(), base); err != nil {
		t.Fatal(err)
	}
	want := []start{{"tests", 40 * time.Second}, {"tests", first[0].Duration}}
	if len(told) != 2 || told[0] != want[0] || told[1] != want[1] {
		t.Errorf("told %v, want %v", told, want)
	}
}

// TestGateReportRedacted: a secret that the output's JSON escapes past the
// redaction of the stream (client_secret=\"…\": the catalog's rule takes
// quotes, not escaped ones) comes back whole when the parser decodes it; the
// gate runner redacts what it decoded: the findings (what the feedback, the
// state and the report are made of), their keys, the tail and the failures
// file hold none of it.
func TestGateReportRedacted(t *testing.T) {
	t.Parallel()
	const secret = "Xk9vR2mLq7Tb4WnZ8pYc3Hs6"
	dir := t.TempDir()
	script := `printf '{"Action":"output","Package":"m/auth","Test":"TestOAuth","Output":"    auth_test.go:9: client_secret=\\"` + secret + `\\" rejected\\n"}\n'
printf '{"Action":"fail","Package":"m/auth","Test":"TestOAuth"}\n{"Action":"fail","Package":"m/auth"}\n'
exit 1`
	if err := os.WriteFile(filepath.Join(dir, "gate.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "gates"), 0o700); err != nil {
		t.Fatal(err)
	}
	g := &ProcGates{Specs: []GateSpec{{Name: "tests", Argv: []string{"sh", "./gate.sh"}, Required: true, Format: "gotest-json", Rerun: gate.RerunOff}}}
	res, err := g.RunGates(t.Context(), dir, filepath.Join(dir, "gates"), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if len(r.Findings) != 1 || r.Findings[0].Message != `client_secret="[REDACTED]" rejected` {
		t.Fatalf("findings %+v, want TestOAuth's, redacted", r.Findings)
	}
	b, err := os.ReadFile(filepath.Join(dir, r.FailuresPath))
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"key": r.Findings[0].Key, "tail": r.Tail, "failures file": string(b)} {
		if strings.Contains(s, secret) {
			t.Errorf("the %s holds the secret: %q", what, s)
		}
	}
}

// TestGateFailuresFileUnwritable: a failures list that cannot be written is
// said as a problem of the gate's output; the gate's result stands and the
// run goes on.
func TestGateFailuresFileUnwritable(t *testing.T) {
	t.Parallel()
	dir, logDir := t.TempDir(), t.TempDir()
	// A folder where the list goes: its write fails, as on a full disk.
	if err := os.Mkdir(filepath.Join(logDir, "tests.failures.txt"), 0o700); err != nil {
		t.Fatal(err)
	}
	g := &ProcGates{Specs: []GateSpec{{Name: "tests", Argv: []string{"sh", "-c", "printf -- '--- FAIL: TestAdd (0.00s)\\nFAIL\\n'; exit 1"}, Required: true, Format: "gotest", Rerun: gate.RerunOff}}}
	res, err := g.RunGates(t.Context(), dir, logDir, nil)
	if err != nil {
		t.Fatalf("RunGates: %v; want the gate's result, the list's write said in it", err)
	}
	if r := res[0]; r.Passed || r.FailuresPath != "" || !strings.Contains(r.OutputProblems(), "the list of its failures could not be written") {
		t.Errorf("result %+v: want a failing gate, no list named, the write's failure said", r)
	}
}
