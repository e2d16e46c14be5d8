package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
)

func TestExitCode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("boom"), ExitFailure},
		{usageError("bad flag"), ExitUsage},
		{fmt.Errorf("wrapped: %w", &ExitError{Code: ExitEscalated}), ExitEscalated},
		{&InterruptError{Signal: "interrupt"}, ExitInterrupted},
		{context.Canceled, ExitInterrupted},
		{fmt.Errorf("task file: %w", &app.UsageError{Err: errors.New("bad")}), ExitUsage},
	} {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

// TestRecordedRun checks that resume rebuilds a run's flags and that the flags
// given to resume win.
func TestRecordedRun(t *testing.T) {
	t.Parallel()
	var first runOptions
	run := pflag.NewFlagSet("run", pflag.ContinueOnError)
	first.AddFlags(run)
	if err := run.Parse([]string{"--agent-cmd", "my agent --yes", "--gate", "go test ./...", "--gate", "go vet ./...", "--max-cost", "5", "-v"}); err != nil {
		t.Fatal(err)
	}
	first.noteGiven(run)
	recorded := first.recorded()
	want := []string{"--agent-cmd=my agent --yes", "--gate=go test ./...", "--gate=go vet ./...", "--max-cost=5"}
	if diff := cmp.Diff(want, recorded); diff != "" {
		t.Errorf("recorded flags (-want +got):\n%s", diff)
	}

	var later resumeOptions
	resume := pflag.NewFlagSet("resume", pflag.ContinueOnError)
	later.AddFlags(resume)
	if err := resume.Parse([]string{"--max-cost", "10", "--gate", "make check", "--guidance", "go on"}); err != nil {
		t.Fatal(err)
	}
	later.noteGiven(resume)
	f, err := later.onRecorded(recorded)
	if err != nil {
		t.Fatal(err)
	}
	if f.agentCmd != "my agent --yes" || f.maxCost != 10 || !slices.Equal(f.gates, []string{"make check"}) {
		t.Errorf("merged flags: agent %q, max cost %v, gates %q", f.agentCmd, f.maxCost, f.gates)
	}
	if !f.isGiven("max-cost") || !f.isGiven("gate") || !f.isGiven("agent-cmd") || f.isGiven("max-tokens") {
		t.Errorf("merged options do not mark exactly the recorded and given flags as set: %v", f.given)
	}
	ov := f.overrides()
	if ov.MaxCostUSD == nil || *ov.MaxCostUSD != 10 || ov.AgentCmd == nil || ov.MaxTokens != nil || ov.Agent != nil {
		t.Errorf("overrides from the merged flags: %+v", ov)
	}
	// Flags given to a first run that records them (a graph's first run --tasks
	// has no recorded flags yet) are recorded, repeatable ones too.
	fresh, err := later.onRecorded(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fresh.recorded(), []string{"--gate=make check", "--max-cost=10"}; !slices.Equal(got, want) {
		t.Errorf("flags given over no recorded ones are recorded as %q, want %q", got, want)
	}
	if _, err := later.onRecorded([]string{"--no-such-flag=1"}); ExitCode(err) != ExitUsage {
		t.Errorf("recorded flags that no longer parse: %v, want a usage error", err)
	}
}

// TestOverrideFlags checks that every flag of the override table exists, and
// that only the flags given override the configuration.
func TestOverrideFlags(t *testing.T) {
	t.Parallel()
	var o runOptions
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	o.AddFlags(fs)
	for _, f := range overrideFlags {
		if fs.Lookup(f.flag) == nil {
			t.Errorf("override table names --%s, which run does not have", f.flag)
		}
	}
	if err := fs.Parse([]string{"--max-iterations=0", "--timeout=5m", "--context", "TASK.md"}); err != nil {
		t.Fatal(err)
	}
	o.noteGiven(fs)
	ov := o.overrides()
	if ov.MaxIterations == nil || *ov.MaxIterations != 0 {
		t.Errorf("--max-iterations=0 given: override %v, want 0 (unlimited)", ov.MaxIterations)
	}
	if ov.Timeout == nil || *ov.Timeout != 5*time.Minute || ov.FailureThreshold != nil || ov.LogFormat != nil {
		t.Errorf("overrides: %+v", ov)
	}
	if !slices.Equal(ov.Context, []string{"TASK.md"}) {
		t.Errorf("context override %q", ov.Context)
	}
}

// TestExitStatusHelp checks that every command's help has an EXIT STATUS
// section, and that the codes a loop exits with mean what docs/exit-codes.md says.
func TestExitStatusHelp(t *testing.T) {
	t.Parallel()
	for _, c := range newRoot(Deps{}).Commands() {
		if c.Name() == "help" || c.Name() == "completion" || !c.Runnable() { // a help topic runs nothing
			continue
		}
		if !strings.Contains(c.Long, "\n\nEXIT STATUS\n") {
			t.Errorf("agentloop %s --help has no EXIT STATUS section", c.Name())
		}
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "exit-codes.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Join(strings.Fields(string(b)), " ")
	for _, l := range loopExits {
		if want := fmt.Sprintf("| %d | %s |", l.code, l.meaning); !strings.Contains(page, want) {
			t.Errorf("docs/exit-codes.md does not say exit code %q", want)
		}
	}
}

func TestRunDecide(t *testing.T) {
	t.Parallel()
	in := "iteration_check:\n  task_id: t1\n  current_iteration: 1\n  max_iterations: 3\n  test_result: {status: pass, output: ok}\n  review_result: {status: approve, feedback: \"\"}\n"
	var out bytes.Buffer
	d := Deps{Stdin: strings.NewReader(in), Stdout: &out}
	if err := runDecide(context.Background(), decideOptions{file: "-"}, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "action: proceed") {
		t.Errorf("decision:\n%s", out.String())
	}
	d.Stdin = strings.NewReader("iteration_check: {task_id: 1, nonsense: true}\n")
	if err := runDecide(context.Background(), decideOptions{file: "-"}, d); ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "stdin: ") {
		t.Errorf("an invalid document: %v, want a usage error naming stdin", err)
	}
}

func TestRunStatusAndReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	d := Deps{
		Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" },
		Now: time.Now, Getwd: func() (string, error) { return dir, nil },
		IsTerminal: func(io.Writer) bool { return false },
	}
	if err := runStatus(context.Background(), statusOptions{}, d, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "No runs in ") {
		t.Errorf("status of an empty folder: %q", out.String())
	}
	if err := runStatus(context.Background(), statusOptions{}, d, []string{"nosuch"}); ExitCode(err) != ExitFailure {
		t.Errorf("status of a missing run: %v, want exit 1", err)
	}
	if err := runReport(context.Background(), reportOptions{format: "md"}, d, []string{"nosuch"}); ExitCode(err) != ExitFailure {
		t.Errorf("report of a missing run: %v, want exit 1", err)
	}
	if err := runReport(context.Background(), reportOptions{format: "pdf"}, d, []string{"nosuch"}); ExitCode(err) != ExitUsage {
		t.Errorf("report --format pdf: %v, want exit 2", err)
	}
}

func TestRunAgents(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	d := Deps{Stdout: &out, LookPath: func(file string) (string, error) {
		if file == "claude" {
			return "/opt/bin/claude", nil
		}
		return "", errors.New("not found")
	}}
	wd := t.TempDir()
	d.Getwd = func() (string, error) { return wd, nil }
	d.Getenv = func(string) string { return "" }
	if err := runAgents(context.Background(), d, ""); err != nil {
		t.Fatal(err)
	}
	var claude, codex string
	for _, line := range strings.Split(out.String(), "\n") {
		switch f := strings.Fields(line); {
		case len(f) > 0 && f[0] == "claude":
			claude = f[len(f)-1]
		case len(f) > 0 && f[0] == "codex":
			codex = f[len(f)-1]
		}
	}
	if claude != "/opt/bin/claude" || codex != "no" {
		t.Errorf("installed: claude %q, codex %q; table:\n%s", claude, codex, out.String())
	}
}

func TestColorAndRedraw(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name             string
		terminal         bool
		env              map[string]string
		color, redrawing bool
	}{
		{"terminal", true, nil, true, true},
		{"not a terminal", false, nil, false, false},
		{"NO_COLOR", true, map[string]string{"NO_COLOR": "1"}, false, true},
		{"TERM=dumb", true, map[string]string{"TERM": "dumb"}, false, false},
		{"TERM=xterm", true, map[string]string{"TERM": "xterm-256color"}, true, true},
	} {
		d := Deps{
			Getenv:     func(k string) string { return tc.env[k] },
			IsTerminal: func(io.Writer) bool { return tc.terminal },
		}
		if got := canColor(d, io.Discard); got != tc.color {
			t.Errorf("%s: canColor = %v, want %v", tc.name, got, tc.color)
		}
		if got := canRedraw(d, io.Discard); got != tc.redrawing {
			t.Errorf("%s: canRedraw = %v, want %v", tc.name, got, tc.redrawing)
		}
	}
}

// feedback and decide given no file on a terminal say so (exit 2) instead of
// waiting for input the person did not mean to type.
func TestNoInputOnATerminal(t *testing.T) {
	t.Parallel()
	tty, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	d := Deps{Stdin: tty, IsTerminal: func(io.Writer) bool { return true }}
	if _, _, _, err := openInput(d, ""); ExitCode(err) != ExitUsage {
		t.Errorf("no file on a terminal: %v, want a usage error", err)
	}
	if _, name, _, err := openInput(d, "-"); err != nil || name != "stdin" {
		t.Errorf("- on a terminal: %q, %v; want stdin read", name, err)
	}
	d.IsTerminal = func(io.Writer) bool { return false }
	if _, name, _, err := openInput(d, ""); err != nil || name != "stdin" {
		t.Errorf("no file, piped: %q, %v; want stdin read", name, err)
	}
}

func TestReportFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ format, output, want string }{
		{"", "", "md"},
		{"", "r.html", "html"},
		{"", "R.JSON", "json"},
		{"", "notes.txt", "md"},
		{"HTML", "", "html"},
		{"md", "r.html", "md"},
	} {
		if got := reportFormat(tc.format, tc.output); got != tc.want {
			t.Errorf("reportFormat(%q, %q) = %q, want %q", tc.format, tc.output, got, tc.want)
		}
	}
}

// TestTemporalFlagsHidden checks that a build without the Temporal engine
// does not offer its flags in help, and a build with it does.
func TestTemporalFlagsHidden(t *testing.T) {
	t.Parallel()
	for _, c := range newRoot(Deps{}).Commands() {
		for _, name := range []string{"temporal-address", "temporal-namespace", "temporal-task-queue", "heartbeat-timeout"} {
			if f := c.Flags().Lookup(name); f != nil && f.Hidden == temporalBuilt {
				t.Errorf("agentloop %s --%s: hidden %v in a build with the Temporal engine %v", c.Name(), name, f.Hidden, temporalBuilt)
			}
		}
	}
}

// TestDetachAndFollowNeedTemporal: run --detach and follow are the Temporal
// engine's (a local run lives in the process that runs it); on the local
// engine each is a usage error saying so, and --detach is no graph's.
func TestDetachAndFollowNeedTemporal(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--detach", "--agent-cmd", "true"}, "--detach starts a run on Temporal (--engine temporal)"},
		{[]string{"follow", "build"}, "follow follows a run on Temporal (--engine temporal"},
		{[]string{"run", "--detach", "--tasks", "tasks.yaml", "--engine", "temporal"}, "--detach starts a single run"},
		// A run's flags go to the workers in its history: none may hold a secret.
		{[]string{"run", "--engine", "temporal", "--agent-cmd", "true", "--gate", "curl -H 'Authorization: token ghp_R8xk2Lq9VwZ3mN7pT4sY6bC1dF5gH0jK2aE9' https://ci.example/ok"},
			"--gate holds a secret (curl -H 'Authorization: token [REDACTED"},
	} {
		var out, errOut bytes.Buffer
		d := Std()
		d.Stdout, d.Stderr = &out, &errOut
		d.Getenv = func(string) string { return "" }
		d.Getwd = func() (string, error) { return t.TempDir(), nil }
		err := Run(t.Context(), c.args, d)
		if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: exit %d (%v), want %d saying %q", c.args, ExitCode(err), err, ExitUsage, c.want)
		}
	}
}
