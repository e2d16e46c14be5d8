//go:build windows

package proc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestMain lets the test binary play the processes of these tests: with
// PROC_TEST_HELPER set it runs that helper instead of the tests.
func TestMain(m *testing.M) {
	switch os.Getenv("PROC_TEST_HELPER") {
	case "":
		os.Exit(m.Run())
	case "tree-leader":
		os.Exit(treeLeader())
	case "stubborn":
		stubbornForever()
	case "owner":
		os.Exit(owner())
	case "interrupt-130":
		c := make(chan os.Signal, 1)
		signal.Notify(c, os.Interrupt)
		fmt.Println("ready")
		<-c
		os.Exit(130) // as agentloop does on Ctrl-C
	case "say-exit":
		fmt.Println("line", os.Getenv("PROC_TEST_LINE"))
		code, _ := strconv.Atoi(os.Getenv("PROC_TEST_CODE"))
		os.Exit(code)
	case "print-args":
		b, _ := json.Marshal(os.Args[1:])
		fmt.Println(string(b))
		os.Exit(0)
	default:
		fmt.Fprintln(os.Stderr, "unknown PROC_TEST_HELPER")
		os.Exit(2)
	}
}

// treeLeader is an agent that starts a grandchild which survives Ctrl-Break
// and holds the output open, prints the grandchild's pid and its own, and
// then exits at once (PROC_TEST_EXIT=1) or survives Ctrl-Break and sleeps.
func treeLeader() int {
	g := exec.Command(os.Args[0])
	g.Env = append(os.Environ(), "PROC_TEST_HELPER=stubborn")
	g.Stdout, g.Stderr = os.Stdout, os.Stderr
	if err := g.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "tree-leader:", err)
		return 1
	}
	fmt.Println(g.Process.Pid)
	fmt.Println(os.Getpid())
	if os.Getenv("PROC_TEST_EXIT") == "1" {
		return 0
	}
	stubbornForever()
	return 0
}

// stubbornForever survives Ctrl-Break and Ctrl-C (Go's default for a console
// control event it is not told to handle is to exit) and sleeps forever.
func stubbornForever() {
	signal.Notify(make(chan os.Signal, 1), os.Interrupt)
	for {
		time.Sleep(time.Hour)
	}
}

// owner is agentloop: it runs a tree-leader with Run and copies its output to
// stdout, until it is killed.
func owner() int {
	env := append(os.Environ(), "PROC_TEST_HELPER=tree-leader")
	_, err := Run(context.Background(), Spec{Argv: []string{os.Args[0]}, Env: env, Stdout: os.Stdout})
	if err != nil {
		fmt.Fprintln(os.Stderr, "owner:", err)
		return 1
	}
	return 0
}

func helperEnv(name string, extra ...string) []string {
	return append(append(os.Environ(), "PROC_TEST_HELPER="+name), extra...)
}

// An agent whose grandchild ignores the polite stop and holds the output is
// ended whole on its timeout: the grandchild too, through the job object.
func TestJobEndsTreeOnTimeout(t *testing.T) {
	t.Parallel()
	const timeout, grace = time.Second, 300 * time.Millisecond
	var out bytes.Buffer
	res, err := Run(t.Context(), Spec{Argv: []string{os.Args[0]}, Env: helperEnv("tree-leader"), Stdout: &out, Timeout: timeout, Grace: grace})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !res.TimedOut || res.Signal != "SIGKILL" || res.ExitCode != -1 {
		t.Errorf("Result = %+v, want TimedOut, killed", res)
	}
	if res.Duration > timeout+grace+5*time.Second {
		t.Errorf("Duration = %s: the grandchild holding the output delayed Run", res.Duration)
	}
	assertGone(t, pids(t, out.String()), 2*time.Second)
}

// An agent that exits at once, leaving a grandchild that holds the output,
// ends its iteration: Run returns and the grandchild is gone with the job.
func TestJobEndsTreeWhenLeaderExits(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	res, err := Run(t.Context(), Spec{Argv: []string{os.Args[0]}, Env: helperEnv("tree-leader", "PROC_TEST_EXIT=1"), Stdout: &out, Grace: 5 * time.Second})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if res.Duration > 4*time.Second {
		t.Errorf("Run took %s: the grandchild holding the output delayed it", res.Duration)
	}
	assertGone(t, pids(t, out.String()), 2*time.Second)
}

// When agentloop itself is killed (no cleanup of its own runs), its job
// handles close and Windows kills every process of its runs.
func TestJobEndsTreeWhenOwnerDies(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0])
	cmd.Env = helperEnv("owner")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	var ps []int
	for len(ps) < 2 && sc.Scan() {
		pid, err := strconv.Atoi(sc.Text())
		if err != nil {
			t.Fatalf("owner printed %q", sc.Text())
		}
		ps = append(ps, pid)
	}
	if len(ps) < 2 {
		t.Fatalf("owner printed %v, want two pids: %v", ps, sc.Err())
	}
	for _, pid := range ps {
		if !Alive(pid) {
			t.Fatalf("pid %d not alive before the owner is killed", pid)
		}
	}
	if err := cmd.Process.Kill(); err != nil { // TerminateProcess: nothing of the owner runs
		t.Fatal(err)
	}
	_ = cmd.Wait()
	assertGone(t, ps, 2*time.Second)
}

func TestExitCodeStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code       uint32
		wantCode   int
		wantSignal string
	}{
		{0, 0, ""},
		{3, 3, ""},
		{jobExitCode, -1, "SIGKILL"},
		{statusControlCExit, -1, "SIGINT"},
	}
	for _, tt := range tests {
		code, sig := exitCodeStatus(tt.code)
		if code != tt.wantCode || sig != tt.wantSignal {
			t.Errorf("exitCodeStatus(%#x) = %d, %q; want %d, %q", tt.code, code, sig, tt.wantCode, tt.wantSignal)
		}
	}
}

func TestAliveAndStartTimeWindows(t *testing.T) {
	t.Parallel()
	if !Alive(os.Getpid()) {
		t.Error("Alive(self) = false")
	}
	if Alive(0) || Alive(-1) {
		t.Error("Alive of a non-positive pid = true")
	}
	st1, err := StartTime(os.Getpid())
	if err != nil || st1 == "" {
		t.Fatalf("StartTime(self) = %q, %v", st1, err)
	}
	if st2, _ := StartTime(os.Getpid()); st1 != st2 {
		t.Errorf("StartTime changed: %q then %q", st1, st2)
	}
	done := exec.Command(os.Args[0], "-test.run=^$")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	if Alive(done.Process.Pid) {
		t.Errorf("Alive(exited pid %d) = true", done.Process.Pid)
	}
}

// Run on Windows reports a job object: doctor says so.
func TestContainsJob(t *testing.T) {
	t.Parallel()
	if got := (&Groups{}).Contains(); got.Kind != ContainJob {
		t.Errorf("Contains() = %+v, want a job object", got)
	}
}

// An agent installed by npm is a command shim (claude.cmd): it runs as the
// program the shim names, the prompt passed as it is, not read by cmd.exe.
func TestRunNpmShim(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "Program Files", "npm") // spaces, a drive letter
	exe, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "node_modules", "tool", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "tool.exe"), exe, 0o755); err != nil {
		t.Fatal(err)
	}
	shim := filepath.Join(dir, "tool.cmd")
	text := strings.Replace(shimNative, `node_modules\@openai\codex\bin\codex.exe`, `node_modules\tool\bin\tool.exe`, 1)
	if err := os.WriteFile(shim, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"fix the bug & say so", "100% | done", `a "quoted" word`, "two\nlines", "^caret <in> !bang!"}
	var out bytes.Buffer
	res, err := Run(t.Context(), Spec{Argv: append([]string{shim}, args...), Env: helperEnv("print-args"), Stdout: &out, Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Run = %+v, %v\n%s", res, err, out.String())
	}
	var got []string
	if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &got); err != nil || !slices.Equal(got, args) {
		t.Errorf("the program got %q (%v), want %q", got, err, args)
	}
}

// Another batch file runs, unless cmd.exe would read an argument as its own.
func TestRunBatchRefusesWhatCmdReads(t *testing.T) {
	t.Parallel()
	bat := filepath.Join(t.TempDir(), "gate.bat")
	if err := os.WriteFile(bat, []byte("@echo off\r\necho %*\r\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Run(t.Context(), Spec{Argv: []string{bat, "a & calc"}})
	if err == nil || !strings.Contains(err.Error(), "cmd.exe would read") {
		t.Errorf("Run of a batch file with & in an argument: %v, want a refusal", err)
	}
}

// A PowerShell script runs through powershell -File.
func TestCommandLinePowerShell(t *testing.T) {
	t.Parallel()
	ps1 := filepath.Join(t.TempDir(), "agent.ps1")
	if err := os.WriteFile(ps1, []byte("Write-Output $args\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := commandLine([]string{ps1, "-p", "x"})
	want := []string{"powershell.exe", "-NoLogo", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-File", ps1, "-p", "x"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("commandLine = %q, %v; want %q", got, err, want)
	}
}

// On cancellation (Ctrl-C, a timeout) the run's console process group is asked to stop first
// (CTRL_BREAK_EVENT, which Go delivers as os.Interrupt): an agent that handles
// it ends by itself, well before the grace runs out.
func TestRunCancelBreaksGroupFirst(t *testing.T) {
	t.Parallel()
	testenv.SkipUnderWine(t, "Wine 8 sends no console control event to a process group: GenerateConsoleCtrlEvent fails, Invalid access with pipes, Invalid handle in a terminal")
	const grace = 20 * time.Second
	out, ready := lineEvents(1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		select {
		case <-ready:
			cancel()
		case <-ctx.Done():
		}
	}()
	res, err := Run(ctx, Spec{Argv: []string{os.Args[0]}, Env: helperEnv("interrupt-130"), Stdout: out, Grace: grace})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 130 || res.Duration > grace/2 {
		t.Errorf("Result = %+v, want exit 130 long before the grace of %s", res, grace)
	}
}

// A detached process (a run resumed from agentloop watch) is outside
// agentloop's jobs, appends its output to the log and tells its exit code.
func TestDetachWindows(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "watch", "run.log")
	for i, want := range []int{0, 3} {
		env := helperEnv("say-exit", "PROC_TEST_LINE="+strconv.Itoa(i), "PROC_TEST_CODE="+strconv.Itoa(want))
		p, err := Detach([]string{os.Args[0]}, "", env, log)
		if err != nil {
			t.Fatal(err)
		}
		if code, sig := p.Wait(); code != want || sig != "" {
			t.Errorf("Wait() = %d, %q; want %d", code, sig, want)
		}
		if b, err := os.ReadFile(log); err != nil || !strings.Contains(string(b), "line "+strconv.Itoa(i)) {
			t.Errorf("log %q (%v) lacks line %d", b, err, i)
		}
	}
}

// agentloop stop --now cannot interrupt another process on Windows: it says
// what to do instead.
func TestInterruptSaysWhatToDo(t *testing.T) {
	t.Parallel()
	err := Interrupt(os.Getpid())
	if err == nil || !strings.Contains(err.Error(), "Ctrl-C in its console") || !strings.Contains(err.Error(), "without --now") {
		t.Errorf("Interrupt = %v, want an error saying to press Ctrl-C or stop without --now", err)
	}
}
