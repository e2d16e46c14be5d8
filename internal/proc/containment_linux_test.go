package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/testenv"
)

// shed leaves a process behind that drops the marker and leaves the session
// (env -i setsid), and prints its pid once it has.
const shed = "echo $(env -i setsid sh -c 'echo $$; exec sleep 300 </dev/null >/dev/null 2>&1' &)"

// needCgroup skips the test where agentloop may not make cgroups (the
// subreaper is tested there instead).
func needCgroup(t *testing.T) *Groups {
	t.Helper()
	testenv.NeedTool(t, "setsid", "env")
	g := &Groups{}
	if c := g.Contains(); c.Kind != ContainCgroup {
		t.Skipf("no cgroup v2 this process may create (%s); the subreaper is tested instead", c)
	}
	return g
}

// Where the system gives a cgroup, every run is in one of its own: a process
// that drops the marker and leaves the session is in it all the same, and
// dies with the run; the cgroup is gone afterwards.
func TestRunContainsInCgroup(t *testing.T) {
	t.Parallel()
	g := needCgroup(t)
	var seen []Child
	sub := g.Sub(func(cs []Child) {
		if len(cs) > 0 {
			seen = cs
		}
	})
	out, _ := lineEvents(1)
	res, err := Run(WithGroups(t.Context(), sub), Spec{Argv: []string{"sh", "-c", shed + "; cat /proc/self/cgroup"}, Stdout: out, Grace: time.Second})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	lines := strings.Split(out.String(), "\n")
	if len(seen) != 1 || seen[0].Cgroup == "" || !strings.Contains(out.String(), filepath.Base(seen[0].Cgroup)) {
		t.Fatalf("the run's child %+v, its cgroup as it saw it: %q", seen, lines)
	}
	if res.LeftBehind != 1 {
		t.Errorf("LeftBehind = %d, want the 1 process that left the run's group", res.LeftBehind)
	}
	assertGone(t, pids(t, lines[0]), 2*time.Second)
	if _, err := os.Stat(seen[0].Cgroup); !os.IsNotExist(err) {
		t.Errorf("the run's cgroup %s is still there: %v", seen[0].Cgroup, err)
	}
}

// What the run's own group held when it ended (a background job, a child
// still exiting) is ended with the group, and not counted as left behind.
func TestLeftBehindIsWhatLeftTheGroup(t *testing.T) {
	t.Parallel()
	needCgroup(t)
	res, err := Run(t.Context(), Spec{Argv: []string{"sh", "-c", "sleep 300 & sleep 300 & exit 0"}, Grace: time.Second})
	if err != nil || res.LeftBehind != 0 {
		t.Errorf("Run = %+v, %v; want nothing left behind", res, err)
	}
}

// KillAll kills what is in the runs' cgroups too, and a lock's recovery
// (EndOrphans) the cgroup of a run of a dead process.
func TestKillAllAndEndOrphansKillCgroups(t *testing.T) {
	t.Parallel()
	needCgroup(t)
	for _, end := range []string{"KillAll", "EndOrphans"} {
		t.Run(end, func(t *testing.T) {
			g := &Groups{}
			var child Child
			sub := g.Sub(func(cs []Child) {
				if len(cs) > 0 {
					child = cs[0]
				}
			})
			out, started := lineEvents(1)
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = Run(WithGroups(t.Context(), sub), Spec{Argv: []string{"sh", "-c", shed + "; exec sleep 300"}, Stdout: out, Grace: time.Second})
			}()
			<-started
			escaped := pids(t, out.String())
			switch end {
			case "KillAll":
				g.KillAll()
			case "EndOrphans":
				EndOrphans([]Child{child}, time.Second)
			}
			assertGone(t, escaped, 2*time.Second)
			<-done
		})
	}
}

// Without a cgroup, a process that drops the marker and leaves the session is
// an orphan agentloop adopted as subreaper: it dies with the run when no other
// run is live, and waits for the last live run to end otherwise. A child
// agentloop starts itself in its own session (git) is never touched.
func TestRunContainsAsSubreaper(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "setsid", "env")
	runStrays(t, os.Args[0])
}

// runStrays runs the helper strays with the command line argv and fails the
// test with what it says unless it says "ok".
func runStrays(t *testing.T, argv ...string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "PROC_TEST_HELPER=strays", "GORACE="+testenv.GORACE())
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("helper: %v\n%s", err, out)
	}
}

// The same where agentloop's session reads 0: in a pid namespace of its own
// whose first process never called setsid (a container's), the session leader
// is outside it. Its own children read 0 too, and a stray its own pid.
func TestRunContainsAsSubreaperInContainer(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "setsid", "env")
	unshare := testenv.NeedTool(t, "unshare")
	// unshare's child is the namespace's first process (pid 1) and keeps
	// unshare's session, which is outside: the helper, its child, reads 0.
	ns := []string{unshare, "--pid", "--fork", "--mount-proc", "sh", "-c"}
	if out, err := exec.Command(ns[0], append(ns[1:], "cut -d')' -f2 /proc/self/stat")...).CombinedOutput(); err != nil {
		t.Skipf("no pid namespace this process may make: %v: %s", err, out)
	} else if f := strings.Fields(string(out)); len(f) < 4 || f[3] != "0" {
		t.Fatalf("a process in the new pid namespace reads its session as %v, want 0", f)
	}
	runStrays(t, append(ns, `"$0"; exit $?`, os.Args[0])...)
}

func TestAdoptedStray(t *testing.T) {
	t.Parallel()
	const self = 100
	tests := []struct {
		name  string
		p     procInfo
		mySID int
		want  bool
	}{
		{"adopted, in a session of its own", procInfo{ppid: self, sid: 200}, 50, true},
		{"a child in this process's session (git)", procInfo{ppid: self, sid: 50}, 50, false},
		{"not this process's child", procInfo{ppid: 7, sid: 200}, 50, false},
		{"this session reads 0 (a container's), the stray's its own", procInfo{ppid: self, sid: 200}, 0, true},
		{"this session reads 0, and the child's too (git)", procInfo{ppid: self, sid: 0}, 0, false},
		{"this session unknown", procInfo{ppid: self, sid: 200}, -1, false},
		{"the child's session unknown", procInfo{ppid: self, sid: -1}, 50, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := adoptedStray(tt.p, self, tt.mySID); got != tt.want {
				t.Errorf("adoptedStray(%+v, %d, %d) = %v, want %v", tt.p, self, tt.mySID, got, tt.want)
			}
		})
	}
}

// strays is the helper of TestRunContainsAsSubreaper: it is the subreaper
// agentloop is, without cgroups, and prints "ok" or what went wrong.
func strays() int {
	if !BecomeSubreaper() {
		fmt.Println("ok") // nothing to test: no subreaper here
		return 0
	}
	fail := func(format string, args ...any) int {
		fmt.Printf(format+"\n", args...)
		return 1
	}
	g := &Groups{NoCgroup: true}
	if c := g.Contains(); c.Kind != ContainSubreaper {
		return fail("Contains = %s, want the subreaper", c)
	}
	ctx := WithGroups(context.Background(), g)
	// A child of agentloop's own, in its session (as git runs).
	own := exec.Command("sleep", "300")
	own.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := own.Start(); err != nil {
		return fail("start: %v", err)
	}
	defer func() { _ = own.Process.Kill(); _ = own.Wait() }()

	run := func(script string) (int, error) {
		var b strings.Builder
		if _, err := Run(ctx, Spec{Argv: []string{"sh", "-c", script}, Stdout: &b, Grace: time.Second}); err != nil {
			return 0, err
		}
		return strconv.Atoi(strings.TrimSpace(b.String()))
	}
	alive := func(pid int) bool { return Alive(pid) && !zombie(pid) }
	gone := func(pid int) bool {
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if !alive(pid) {
				return true
			}
		}
		return false
	}

	// One run alone: what it shed dies with it.
	pid, err := run(shed)
	if err != nil {
		return fail("run: %v", err)
	}
	if !gone(pid) {
		return fail("the process the run shed (%d) is alive after it", pid)
	}

	// Another run is live: the stray names no run, so it waits for that one.
	longDone := make(chan struct{})
	long, longCancel := context.WithCancel(ctx)
	defer longCancel()
	go func() {
		defer close(longDone)
		_, _ = Run(long, Spec{Argv: []string{"sleep", "300"}, Grace: time.Second})
	}()
	for deadline := time.Now().Add(5 * time.Second); g.Len() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	// What left the group but kept the marker dies with its run all the same.
	pid, err = run("echo $(setsid sh -c 'echo $$; exec sleep 300 </dev/null >/dev/null 2>&1' &)")
	if err != nil {
		return fail("run: %v", err)
	}
	if !gone(pid) {
		return fail("a process that kept the run's marker (%d) is alive after it, another run being live", pid)
	}
	pid, err = run(shed)
	if err != nil {
		return fail("run: %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	if !alive(pid) {
		return fail("a stray (%d) was killed while another run was live", pid)
	}
	longCancel()
	<-longDone
	if !gone(pid) {
		return fail("the stray (%d) is alive after the last run ended", pid)
	}
	if !alive(own.Process.Pid) {
		return fail("a child of agentloop's own in its session was killed")
	}
	fmt.Println("ok")
	return 0
}

// A program learns where runs' cgroups go once (not at every run), and
// removes the empty ones of agentloop processes that are gone then.
func TestCgroupRootRemovesStale(t *testing.T) {
	t.Parallel()
	needCgroup(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	base := cgroupBase()
	stale := filepath.Join(base, fmt.Sprintf("%s%d-stale", cgroupPrefix, dead.Process.Pid))
	if err := os.Mkdir(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(stale) })
	g := &Groups{}
	if got := g.cgroupRoot(); got != base {
		t.Fatalf("cgroupRoot = %q, want %q", got, base)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale cgroup %s is still there: %v", stale, err)
	}
	if g.cgBase != base {
		t.Errorf("the program's Groups did not keep %q: %q", base, g.cgBase)
	}
}

// A run cgroup of an agentloop process that is gone, with a process still in
// it (an agent of a killed worker), is emptied and removed when the cgroups
// are first made again (a worker that starts: [EndLeftovers]). Not parallel:
// another test's removal of stale cgroups would remove this one's before its
// process is started in it.
func TestStaleCgroupOfDeadOwnerEnded(t *testing.T) {
	g := needCgroup(t)
	base := g.cgroupRoot()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	c := newCgroup(base, strconv.Itoa(dead.Process.Pid)+"-stale")
	if c == nil {
		t.Fatal("no cgroup made under", base)
	}
	left := exec.Command("sleep", "300")
	c.attach(left)
	if err := left.Start(); err != nil {
		_ = syscall.Close(c.fd)
		_ = os.Remove(c.dir)
		t.Fatal(err)
	}
	_ = syscall.Close(c.fd)
	defer func() { _ = left.Process.Kill() }()
	removeStaleCgroups(base)
	done := make(chan error, 1)
	go func() { done <- left.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("the process in the stale cgroup exited cleanly; want it killed")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the process in the stale cgroup of a dead owner is still running")
	}
	if _, err := os.Stat(c.dir); !os.IsNotExist(err) {
		t.Errorf("the stale cgroup %s is still there: %v", c.dir, err)
	}
}
