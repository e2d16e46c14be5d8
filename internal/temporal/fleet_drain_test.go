//go:build temporal && unix

package temporal_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/state"
)

// TestWorkerDrainsOnSIGTERM: a worker given SIGTERM while its agent works
// takes no more steps and lets the step end within --drain-timeout, then
// exits 0: the run's iteration counts once, the agent ran once. A worker whose
// step outlasts the drain stops its agent and hands the step back at once
// (well before its heartbeat is missed): the next worker runs it again and
// the run ends with its iteration counted once.
func TestWorkerDrainsOnSIGTERM(t *testing.T) {
	f := newFleet(t)
	work := f.repo("work")[0]
	mark := func(n string) string { return filepath.Join(f.dir, n) }
	f.plan("[1]\nwrite " + mark("first") + " yes\nsleep 3s\n" +
		"[2]\nwrite " + mark("second") + " yes\nwaitfor " + mark("release") + "\n" +
		"[*]\nwrite " + mark("again") + " yes\n")
	drain := func(w *proc) time.Duration {
		t.Helper()
		start := time.Now()
		if err := syscall.Kill(w.cmd.Process.Pid, syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := w.wait(t, time.Minute); code != 0 || !strings.Contains(w.out.String(), "Worker draining") {
			t.Fatalf("the drained worker exited %d, want 0, saying it drains:\n%s", code, w.out.String())
		}
		return time.Since(start)
	}

	// The step ends within the drain.
	w := f.start(work, "worker", "--allow-cmd", "fakeagent", "--drain-timeout", "30s")
	run := f.start(work, "run", "--engine", "temporal", "--agent-cmd", "fakeagent", "--max-iterations", "1", "--heartbeat-timeout", "3s")
	f.waitFile(mark("first"))
	if took := drain(w); took < 2*time.Second {
		t.Errorf("the worker exited %s after SIGTERM, before its agent's step (3 s) ended", took)
	}
	w = f.start(work, "worker", "--allow-cmd", "fakeagent", "--drain-timeout", "1s") // the run's workflow goes on here
	f.ended(run, 0)
	if _, err := os.Stat(mark("again")); err == nil {
		t.Fatal("the step that ended within the drain was run again")
	}

	// The step outlasts the drain: handed back, long before its heartbeat
	// (a minute) would be missed.
	run = f.start(work, "run", "--engine", "temporal", "--agent-cmd", "fakeagent", "--max-iterations", "1", "--heartbeat-timeout", "1m")
	f.waitFile(mark("second"))
	drain(w)
	back := time.Now()
	f.start(work, "worker", "--allow-cmd", "fakeagent")
	f.waitFile(mark("again"))
	t.Logf("run again %s after the drain", time.Since(back))
	if took := time.Since(back); took > 30*time.Second {
		t.Errorf("the step was run again %s after its worker drained: not handed back, but lost until its heartbeat was missed", took)
	}
	f.ended(run, 0)
}

// ended waits for the run to exit with code, and checks that it completed
// with its one iteration counted once.
func (f *fleet) ended(run *proc, code int) {
	f.t.Helper()
	if got := run.wait(f.t, 2*time.Minute); got != code {
		f.t.Fatalf("run exited %d, want %d:\n%s", got, code, run.out.String())
	}
	v := f.view("build")
	if v.State.Status != state.StatusCompleted {
		f.t.Errorf("run %s (%s), want completed", v.State.Status, v.State.Reason)
	}
	checkIterations(f.t, v, 1)
}
