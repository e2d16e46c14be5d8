package proc

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"syscall"

	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestRunSweepsSetsid: a process that left the group and the session (setsid,
// as gemini's and opencode's shell tools do) ends with the run: when the leader
// exits, when it times out, and when ctx is canceled (Ctrl-C).
func TestRunSweepsSetsid(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "setsid")
	tests := []struct {
		name   string
		script string
		spec   func(*Spec)
		cancel bool
	}{
		{"leader exits", "setsid sleep 300 & echo $!", nil, false},
		{"timeout", "setsid sleep 300 & echo $!; sleep 300", func(s *Spec) { s.Timeout = 500 * time.Millisecond }, false},
		{"canceled", "setsid sleep 300 & echo $!; sleep 300", nil, true},
		// The leader exits once the grandchild is printed (a file in its
		// folder says so), however slow the machine.
		{"grandchild of a setsid child", "setsid sh -c 'sleep 300 & echo $!; : > printed; sleep 300' & until [ -e printed ]; do sleep 0.05; done",
			func(s *Spec) { s.Dir = t.TempDir() }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			out, printed := lineEvents(1)
			if tt.cancel {
				go func() {
					select {
					case <-printed:
						cancel()
					case <-ctx.Done():
					}
				}()
			}
			s := Spec{Argv: []string{"sh", "-c", tt.script}, Stdout: out, Grace: 200 * time.Millisecond}
			if tt.spec != nil {
				tt.spec(&s)
			}
			res, err := Run(ctx, s)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Duration > 5*time.Second {
				t.Errorf("Run took %s: the escaped process held it", res.Duration)
			}
			assertGone(t, pids(t, out.String()), 2*time.Second)
		})
	}
}

func TestMarkerInherited(t *testing.T) {
	t.Parallel()
	env := withMarker([]string{"A=1", markerVar + "=outer"}, "inner")
	if !slices.Contains(env, markerVar+"=outer,inner") || !slices.Contains(env, "A=1") || len(env) != 2 {
		t.Errorf("withMarker = %q", env)
	}
	if a, b := newMarker(), newMarker(); a == b || !strings.HasPrefix(a, strings.Split(a, "-")[0]) {
		t.Errorf("markers %q and %q are not unique", a, b)
	}
	if hasMarker(os.Getpid(), func(m []byte) bool { return string(m) == "no-such-marker" }) {
		t.Error("this test process carries a marker it was never given")
	}
}

// SweepOrphansOf finds what a dead agentloop left by its marker, whatever group
// or session the process is in, and leaves everything else alone.
func TestSweepOrphansOf(t *testing.T) {
	t.Parallel()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	pid := dead.Process.Pid
	orphan := exec.Command("sleep", "300")
	orphan.Env = append(os.Environ(), markerVar+"=other-1,"+strconv.Itoa(pid)+"-abc")
	orphan.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	bystander := exec.Command("sleep", "300")
	bystander.Env = append(os.Environ(), markerVar+"="+strconv.Itoa(pid)+"0-abc")
	for _, c := range []*exec.Cmd{orphan, bystander} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { _ = bystander.Process.Kill(); _ = bystander.Wait() }()
	if n := SweepOrphansOf(pid); n != 1 {
		t.Errorf("SweepOrphansOf = %d, want 1 (the orphan only)", n)
	}
	if err := orphan.Wait(); err == nil {
		t.Error("the orphan exited cleanly; want it killed")
	}
	if syscall.Kill(bystander.Process.Pid, 0) != nil {
		t.Error("a process with another agentloop's marker was killed")
	}
}

// A subreaper's sweep reads the markers of its own descendants only: what a
// run started is always among them there. A marked process that is not a
// descendant (an orphan init adopted, as happens when this process is no
// subreaper) is left to the sweep that reads every process.
func TestSweepOwnDescendantsOnly(t *testing.T) {
	t.Parallel()
	marker := newMarker() + "-own"
	cmd := exec.Command("sh", "-c", "sleep 300 >/dev/null 2>&1 & echo $!")
	cmd.Env = withMarker(os.Environ(), marker)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	orphan := pids(t, string(out))
	if fields, err := stat(orphan[0]); err != nil || fields[1] == strconv.Itoa(os.Getpid()) {
		t.Skipf("the orphan's parent is this process (%v, %v): it is a subreaper", fields, err)
	}
	match := func(m []byte) bool { return string(m) == marker }
	if n := sweepMatching(match, false, true); n != 0 {
		t.Errorf("own descendants only: %d killed, want 0", n)
	}
	if n := sweepMatching(match, false, false); n != 1 {
		t.Errorf("every process: %d killed, want 1", n)
	}
	assertGone(t, orphan, 2*time.Second)
}

// subreaper becomes a subreaper, starts a shell that leaves a child behind
// and exits, and prints "adopted" when that orphan's parent is now this
// process ("not supported" where BecomeSubreaper reports false).
func subreaper() int {
	if !BecomeSubreaper() {
		fmt.Println("not supported")
		return 0
	}
	out, err := exec.Command("sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "subreaper:", err)
		return 1
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "subreaper:", err)
		return 1
	}
	defer func() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
	}()
	fields, err := stat(pid)
	if err != nil || len(fields) < 2 {
		fmt.Fprintln(os.Stderr, "subreaper: stat of the orphan:", fields, err)
		return 1
	}
	if fields[1] == strconv.Itoa(os.Getpid()) {
		fmt.Println("adopted")
	} else {
		fmt.Println("orphan's parent is", fields[1])
	}
	return 0
}

// On Linux the program becomes the reaper of what its children leave behind:
// an orphan of a child is reparented to it, not to init.
func TestBecomeSubreaper(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PROC_TEST_HELPER=subreaper", "GORACE="+testenv.GORACE())
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "adopted" {
		t.Errorf("helper said %q (%v), want \"adopted\"", out, err)
	}
}

// A sweep waits for a descendant that is exiting (its children are not yet
// reparented): only a descendant of this process counts, and not once it is
// a zombie.
func TestExitingDescendant(t *testing.T) {
	t.Parallel()
	const self = 10
	tests := []struct {
		name  string
		procs map[int]procInfo
		want  bool
	}{
		{"none exiting", map[int]procInfo{self: {ppid: 1}, 11: {ppid: self}, 12: {ppid: 11}}, false},
		{"a child exiting", map[int]procInfo{self: {ppid: 1}, 11: {ppid: self, exiting: true}}, true},
		{"a grandchild exiting", map[int]procInfo{self: {ppid: 1}, 11: {ppid: self}, 12: {ppid: 11, exiting: true}}, true},
		{"a zombie child", map[int]procInfo{self: {ppid: 1}, 11: {ppid: self, exiting: true, zombie: true}}, false},
		{"another process's child exiting", map[int]procInfo{self: {ppid: 1}, 20: {ppid: 1}, 21: {ppid: 20, exiting: true}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := exitingDescendant(tt.procs, self); got != tt.want {
				t.Errorf("exitingDescendant = %v, want %v", got, tt.want)
			}
		})
	}
}

// scanProcs reads whether a process is exiting from its flags: a zombie has,
// this process has not.
func TestScanProcsExiting(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer func() { _ = cmd.Wait() }()
	for deadline := time.Now().Add(10 * time.Second); !zombie(pid) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	procs := scanProcs()
	if p := procs[pid]; !p.zombie || !p.exiting {
		t.Errorf("the exited child %d: %+v, want a zombie that is exiting", pid, p)
	}
	if p := procs[os.Getpid()]; p.exiting {
		t.Errorf("this process: %+v, want not exiting", p)
	}
}

// scanDescendants reads this process and what is below it, a grandchild
// included, and nothing else: the machine's other processes are not read.
func TestScanDescendants(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sh", "-c", "sleep 300 & echo $!; wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var grandchild int
	if _, err := fmt.Fscan(out, &grandchild); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) }()
	procs := scanDescendants(os.Getpid())
	if procs == nil {
		t.Skip("this kernel keeps no lists of children (CONFIG_PROC_CHILDREN)")
	}
	if p, ok := procs[cmd.Process.Pid]; !ok || p.ppid != os.Getpid() {
		t.Errorf("the child %d: %+v, %v; want it with this process as its parent", cmd.Process.Pid, p, ok)
	}
	if p, ok := procs[grandchild]; !ok || p.ppid != cmd.Process.Pid {
		t.Errorf("the grandchild %d: %+v, %v; want it with the child as its parent", grandchild, p, ok)
	}
	if _, ok := procs[1]; ok {
		t.Error("process 1 was read: want only this process and its descendants")
	}
	if len(procs) >= len(scanProcs()) {
		t.Errorf("%d processes read, as many as the whole table", len(procs))
	}
}

// EndLeftovers' sweep by marker kills what carries the marker of a dead
// agentloop process, in any group or session, and not what carries a live
// one's (the test sweeps its own dead owner only: other tests' markers are
// not its to end).
func TestSweepDeadOwners(t *testing.T) {
	t.Parallel()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	pid := dead.Process.Pid
	orphan := exec.Command("sleep", "300")
	orphan.Env = append(os.Environ(), markerVar+"="+strconv.Itoa(pid)+"-abc")
	orphan.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	live := exec.Command("sleep", "300")
	live.Env = append(os.Environ(), markerVar+"="+strconv.Itoa(os.Getppid())+"-abc")
	for _, c := range []*exec.Cmd{orphan, live} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { _ = live.Process.Kill(); _ = live.Wait() }()
	if n := sweepDeadOwners(func(o int) bool { return o == pid || o == os.Getppid() }); n != 1 {
		t.Errorf("sweepDeadOwners = %d, want 1 (the orphan of the dead owner only)", n)
	}
	if err := orphan.Wait(); err == nil {
		t.Error("the orphan exited cleanly; want it killed")
	}
	if syscall.Kill(live.Process.Pid, 0) != nil {
		t.Error("the process of a live owner was killed")
	}
}

// TestWatchdogDone: a watchdog told the program was done ends without
// sweeping /proc for its markers; one that was not sweeps them (and a byte
// other than the last does not count).
func TestWatchdogDone(t *testing.T) {
	t.Parallel()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	pid := dead.Process.Pid
	orphan := exec.Command("sleep", "300")
	orphan.Env = append(os.Environ(), markerVar+"="+strconv.Itoa(pid)+"-abc")
	orphan.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = orphan.Process.Kill() }()
	for _, said := range []string{string(watchdogDone), string(watchdogDone) + "\n"} {
		if code := Watchdog([]string{strconv.Itoa(pid)}, strings.NewReader(said)); code != 0 {
			t.Fatalf("Watchdog = %d", code)
		}
	}
	if syscall.Kill(orphan.Process.Pid, 0) != nil {
		t.Fatal("the watchdog of a program that was done killed a process with its marker")
	}
	if code := Watchdog([]string{strconv.Itoa(pid)}, strings.NewReader(string(watchdogDone)+"x")); code != 0 {
		t.Fatalf("Watchdog = %d", code)
	}
	if err := orphan.Wait(); err == nil {
		t.Error("the orphan exited cleanly; want it killed by the watchdog of a program that was not done")
	}
}

// TestGroupsDone: Done tells the watchdog only when no group is live and no
// run's cgroup is left, and no group starts after it.
func TestGroupsDone(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		live, left bool
	}{{"nothing left", false, false}, {"a group live", true, false}, {"a cgroup left", false, true}} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		g := &Groups{watch: w, watched: true}
		if tt.live {
			g.add(Child{PGID: 1 << 30})
		}
		g.cgBase = t.TempDir()
		g.cgOnce.Do(func() {})
		if err := os.Mkdir(filepath.Join(g.cgBase, cgroupPrefix+strconv.Itoa(os.Getpid()+1)+"-other"), 0o700); err != nil {
			t.Fatal(err) // another process's: not this one's to look for
		}
		if tt.left {
			if err := os.Mkdir(filepath.Join(g.cgBase, cgroupPrefix+strconv.Itoa(os.Getpid())+"-abc"), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		g.Done()
		_ = w.Close()
		b, _ := io.ReadAll(r)
		_ = r.Close()
		if want := map[bool]string{false: string(watchdogDone) + "\n", true: ""}[tt.live || tt.left]; string(b) != want {
			t.Errorf("%s: the watchdog read %q, want %q", tt.name, b, want)
		}
		if !tt.live {
			if err := g.start(exec.Command("true"), "", ""); !errors.Is(err, ErrShuttingDown) {
				t.Errorf("a start after Done: %v, want ErrShuttingDown", err)
			}
		}
	}
}

// TestWatchdogWaits: the watchdog waits in a shell and starts agentloop's
// binary only when the watched process ends without saying it was done, with
// the arguments that make it the watchdog and the end of the same pipe.
func TestWatchdogWaits(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(waiterShell); err != nil {
		t.Skip("no " + waiterShell)
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "agentloop")
	ran := filepath.Join(dir, "ran")
	script := "#!/bin/sh\necho \"$*\" >" + ran + "\ncat >>" + ran + "\n"
	if err := os.WriteFile(exe, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, said, want string
		gone             bool // the binary removed before the watched process ends
	}{
		{"done", string(watchdogDone), "", false},
		{"done, as Done says it", string(watchdogDone) + "\n", "", false},
		{"died", "", WatchdogCommand + " 4242\n", false},
		{"another byte", "x", WatchdogCommand + " 4242\n", false},
		{"died, its binary removed since", "", WatchdogCommand + " 4242\n", true},
	} {
		if err := os.WriteFile(exe, []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
		_ = os.Remove(ran)
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := watchdogCmd(exe, 4242, r, true)
		err = cmd.Start()
		closeExtra(cmd)
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Close()
		if tt.gone {
			if err := os.Remove(exe); err != nil {
				t.Fatal(err)
			}
		}
		_, _ = w.WriteString(tt.said)
		_ = w.Close() // the watched process's end
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s: the watchdog: %v", tt.name, err)
		}
		got, _ := os.ReadFile(ran)
		if string(got) != tt.want {
			t.Errorf("%s: agentloop's binary ran with %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestWatchdogEndsWhenTold: the shell the watchdog waits in ends as soon as
// the watched process said it was done (Done's line), while that process
// still runs and holds the pipe, not at its exit.
func TestWatchdogEndsWhenTold(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(waiterShell); err != nil {
		t.Skip("no " + waiterShell)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	g := &Groups{watch: w, watched: true}
	g.cgBase = t.TempDir()
	g.cgOnce.Do(func() {})
	cmd := watchdogCmd(filepath.Join(t.TempDir(), "agentloop"), 4242, r, true)
	err = cmd.Start()
	closeExtra(cmd)
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Close()
	g.Done()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("the watchdog: %v", err)
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the watchdog still waits for the pipe's end after Done")
	}
}
