//go:build unix

package proc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestRunExit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		argv    []string
		stdin   string
		want    Result
		wantOut string
	}{
		{"ok", []string{"true"}, "", Result{ExitCode: 0}, ""},
		{"code", []string{"sh", "-c", "exit 3"}, "", Result{ExitCode: 3}, ""},
		{"signal", []string{"sh", "-c", "kill -KILL $$"}, "", Result{ExitCode: -1, Signal: "SIGKILL"}, ""},
		{"term", []string{"sh", "-c", "kill -TERM $$"}, "", Result{ExitCode: -1, Signal: "SIGTERM"}, ""},
		{"output", []string{"sh", "-c", "echo out; echo err >&2"}, "", Result{OutputBytes: 8}, "out\nerr\n"},
		{"stdin", []string{"cat"}, "hello", Result{OutputBytes: 5}, "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			s := Spec{Argv: tt.argv, Stdout: &out, Stderr: &out}
			if tt.stdin != "" {
				s.Stdin = strings.NewReader(tt.stdin)
			}
			got, err := Run(t.Context(), s)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Result{}, "Duration")); diff != "" {
				t.Errorf("Result mismatch (-want +got):\n%s", diff)
			}
			if out.String() != tt.wantOut {
				t.Errorf("output = %q, want %q", out.String(), tt.wantOut)
			}
		})
	}
}

func TestRunSeparateStreams(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	res, err := Run(t.Context(), Spec{Argv: []string{"sh", "-c", "echo out; echo err >&2"}, Stdout: &stdout, Stderr: &stderr})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if stdout.String() != "out\n" || stderr.String() != "err\n" {
		t.Errorf("stdout %q stderr %q", stdout.String(), stderr.String())
	}
}

// TestRunSetsPWD: the child's PWD is its directory, not the one agentloop
// inherited (opencode takes its project directory from $PWD).
func TestRunSetsPWD(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, env := range [][]string{nil, {"PWD=/elsewhere", "PATH=" + os.Getenv("PATH")}} {
		var stdout bytes.Buffer
		res, err := Run(t.Context(), Spec{Argv: []string{"printenv", "PWD"}, Dir: dir, Env: env, Stdout: &stdout})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("Run = %+v, %v", res, err)
		}
		if got := strings.TrimSpace(stdout.String()); got != dir {
			t.Errorf("env %q: PWD = %q, want %q", env, got, dir)
		}
	}
}

func TestRunStartError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec Spec
		is   error
		msg  string // the error starts with it
	}{
		{"missing", Spec{Argv: []string{"agentloop-no-such-program"}}, exec.ErrNotFound, "start agentloop-no-such-program: "},
		{"empty", Spec{}, nil, "start (empty command): "},
		{"bad dir", Spec{Argv: []string{"true"}, Dir: "/nonexistent/dir"}, nil, "start true: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Run(t.Context(), tt.spec)
			se, ok := errors.AsType[*StartError](err)
			if !ok {
				t.Fatalf("Run error = %v, want *StartError", err)
			}
			if tt.is != nil && !errors.Is(se, tt.is) {
				t.Errorf("error %v does not wrap %v", se, tt.is)
			}
			if !strings.HasPrefix(se.Error(), tt.msg) {
				t.Errorf("error %q, want it to start with %q", se, tt.msg)
			}
		})
	}
}

// pids parses the pids a test script printed, one per line.
// stubborn is a shell whose child ignores SIGTERM and which itself waits,
// ignoring SIGTERM too; it prints both pids.
const stubborn = `trap "" TERM; sleep 100 & echo $!; echo $$; wait; wait`

func TestRunTimeoutKillsStubbornGroup(t *testing.T) {
	t.Parallel()
	const timeout, grace = 200 * time.Millisecond, 300 * time.Millisecond
	var out bytes.Buffer
	res, err := Run(t.Context(), Spec{Argv: []string{"sh", "-c", stubborn}, Stdout: &out, Timeout: timeout, Grace: grace})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !res.TimedOut || res.Signal != "SIGKILL" || res.ExitCode != -1 {
		t.Errorf("Result = %+v, want TimedOut, killed by SIGKILL", res)
	}
	if res.Duration < timeout+grace || res.Duration > timeout+grace+time.Second {
		t.Errorf("Duration = %s, want about %s", res.Duration, timeout+grace)
	}
	assertGone(t, pids(t, out.String()), time.Second)
}

func TestRunGrandchildHoldingPipe(t *testing.T) {
	t.Parallel()
	// The leader exits at once; its background child keeps stdout open.
	var out bytes.Buffer
	res, err := Run(t.Context(), Spec{Argv: []string{"sh", "-c", "sleep 100 & echo $!"}, Stdout: &out, Grace: 5 * time.Second})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if res.Duration > 2*time.Second {
		t.Errorf("Run took %s: a child holding the pipe delayed it", res.Duration)
	}
	assertGone(t, pids(t, out.String()), time.Second)
}

// heldBack is a Stdout whose first write returns only after hold: a pump
// held back as on a loaded machine, where it was not scheduled within the
// grace after the child's exit.
type heldBack struct {
	hold time.Duration
	buf  bytes.Buffer
}

func (h *heldBack) Write(p []byte) (int, error) {
	if h.buf.Len() == 0 {
		time.Sleep(h.hold)
	}
	return h.buf.Write(p)
}

// TestRunKeepsOutputAPumpHeldBack: what the child wrote before it exited
// reaches Stdout and is counted, even when the pump had not read it by the
// time the grace after the exit ran out (an agent's transcript was lost so,
// its outcome read as a crash before any output).
func TestRunKeepsOutputAPumpHeldBack(t *testing.T) {
	t.Parallel()
	// The grace runs out 50 ms after the exit, some 150 ms after the first
	// line, the hold 500 ms after it.
	out := &heldBack{hold: 500 * time.Millisecond}
	res, err := Run(t.Context(), Spec{Argv: []string{"sh", "-c", "echo first; sleep 0.1; echo second; exit 1"}, Stdout: out, Grace: 50 * time.Millisecond})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := out.buf.String(); got != "first\nsecond\n" || res.OutputBytes != 13 || res.ExitCode != 1 {
		t.Errorf("output %q, Result %+v; want all 13 bytes the child wrote and its exit 1", got, res)
	}
}

func TestRunIdleTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		script   string
		wantIdle bool
	}{
		{"quiet", "echo start; sleep 100", true},
		// Output every 50 ms against an idle timeout of 1.5 s: a margin of 30× keeps
		// the case right on a loaded machine.
		{"chatty", "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40; do echo $i; sleep 0.05; done", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Run(t.Context(), Spec{Argv: []string{"sh", "-c", tt.script}, IdleTimeout: 1500 * time.Millisecond, Grace: 200 * time.Millisecond})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.IdleTimedOut != tt.wantIdle || res.TimedOut || res.Canceled {
				t.Errorf("Result = %+v, want IdleTimedOut=%v", res, tt.wantIdle)
			}
			if !tt.wantIdle && res.ExitCode != 0 {
				t.Errorf("ExitCode = %d, want 0", res.ExitCode)
			}
		})
	}
}

func TestRunCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, printed := lineEvents(1)
	go func() {
		select {
		case <-printed: // the background sleep runs: cancel now
			cancel()
		case <-ctx.Done():
		}
	}()
	res, err := Run(ctx, Spec{Argv: []string{"sh", "-c", "sleep 100 & echo $!; wait"}, Stdout: out, Grace: 5 * time.Second})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !res.Canceled || res.Signal != "SIGTERM" || res.Duration > 5*time.Second {
		t.Errorf("Result = %+v, want Canceled by SIGTERM before the grace ran out", res)
	}
	assertGone(t, pids(t, out.String()), time.Second)

	res, err = Run(ctx, Spec{Argv: []string{"true"}})
	if err != nil || !res.Canceled {
		t.Errorf("Run with a canceled ctx = %+v, %v; want Canceled", res, err)
	}
}

func TestAliveAndStartTime(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if Alive(cmd.Process.Pid) {
		t.Errorf("Alive(dead pid %d) = true", cmd.Process.Pid)
	}
	if Alive(0) || Alive(-1) {
		t.Error("Alive of a non-positive pid = true")
	}
	self := exec.Command("sleep", "10")
	if err := self.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = self.Process.Kill(); _ = self.Wait() })
	if !Alive(self.Process.Pid) {
		t.Errorf("Alive(live pid) = false")
	}
	if runtime.GOOS != "linux" {
		return
	}
	st1, err := StartTime(self.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	st2, _ := StartTime(self.Process.Pid)
	if st1 != st2 {
		t.Errorf("StartTime changed: %q then %q", st1, st2)
	}
	if _, err := StartTime(cmd.Process.Pid); err == nil {
		t.Error("StartTime(dead pid): no error")
	}
}
