//go:build unix

package proc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestMain lets the test binary play the child processes of these tests: with
// PROC_TEST_HELPER set it runs that helper instead of the tests.
func TestMain(m *testing.M) {
	switch os.Getenv("PROC_TEST_HELPER") {
	case "":
		os.Exit(m.Run())
	case "term-leader":
		os.Exit(termLeader())
	case "term-recorder":
		os.Exit(termRecorder())
	case "subreaper":
		os.Exit(subreaper())
	case "strays":
		os.Exit(strays())
	default:
		fmt.Fprintln(os.Stderr, "unknown PROC_TEST_HELPER")
		os.Exit(2)
	}
}

// termLeader survives SIGTERM, starts a term-recorder in its own process group
// and exits when that child has.
func termLeader() int {
	signal.Ignore(syscall.SIGTERM) // exec resets it for the child
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PROC_TEST_HELPER=term-recorder")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "term-leader:", err)
		return 1
	}
	return 0
}

// termRecorder says "ready" once it handles SIGTERM, and on SIGTERM writes
// "SIGTERM" to $PROC_TEST_RECORD and exits 0.
func termRecorder() int {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM)
	fmt.Println("ready")
	<-c
	if err := os.WriteFile(os.Getenv("PROC_TEST_RECORD"), []byte("SIGTERM"), 0o600); err != nil {
		return 1
	}
	return 0
}

// A child in the agent's group that handles SIGTERM gets it: Run signals the
// whole group, not only its leader (which here survives SIGTERM and waits for the
// child), and the child has ended well before the grace period ran out.
func TestRunTermReachesWholeGroup(t *testing.T) {
	t.Parallel()
	const grace = 5 * time.Second
	record := filepath.Join(t.TempDir(), "record")
	out, ready := lineEvents(1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	canceled := make(chan time.Time, 1) // when: the helpers' start, slow under load, does not count
	go func() {
		select {
		case <-ready:
			canceled <- time.Now()
			cancel()
		case <-ctx.Done():
		}
	}()
	res, err := Run(ctx, Spec{
		Argv:   []string{os.Args[0]},
		Env:    append(os.Environ(), "PROC_TEST_HELPER=term-leader", "PROC_TEST_RECORD="+record, "GORACE="+testenv.GORACE()),
		Stdout: out, Stderr: out, Grace: grace,
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var ended time.Duration
	select {
	case at := <-canceled:
		ended = time.Since(at)
	default:
		t.Fatalf("Run = %+v before the helper was ready (output %q)", res, out.String())
	}
	got, _ := os.ReadFile(record)
	if string(got) != "SIGTERM" {
		t.Errorf("the child in the group recorded %q, want SIGTERM (output %q, result %+v)", got, out.String(), res)
	}
	if !res.Canceled || res.ExitCode != 0 || ended >= grace {
		t.Errorf("Result = %+v, ended %s after the cancel; want Canceled, exit 0 well within the %s grace", res, ended, grace)
	}
}

// KillAll ends every recorded group with SIGKILL at once, even one whose
// processes ignore SIGTERM, without waiting for any grace period; afterwards no
// process starts.
func TestGroupsKillAll(t *testing.T) {
	t.Parallel()
	const grace = time.Minute
	g := &Groups{}
	ctx := WithGroups(t.Context(), g)
	out, started := lineEvents(2) // the stubborn script prints two pids
	type result struct {
		res Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := Run(ctx, Spec{Argv: []string{"sh", "-c", stubborn}, Stdout: out, Grace: grace})
		done <- result{res, err}
	}()
	select {
	case <-started:
	case r := <-done:
		t.Fatalf("Run returned early: %+v, %v", r.res, r.err)
	}
	if n := g.Len(); n != 1 {
		t.Fatalf("Len = %d while the script runs, want 1", n)
	}
	if n := g.KillAll(); n != 1 {
		t.Errorf("KillAll = %d, want 1", n)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(grace / 2):
		t.Fatal("Run did not return after KillAll")
	}
	if r.err != nil || r.res.Signal != "SIGKILL" || r.res.Canceled || r.res.TimedOut {
		t.Errorf("Run = %+v, %v; want killed by SIGKILL", r.res, r.err)
	}
	assertGone(t, pids(t, out.String()), 2*time.Second)
	if n := g.Len(); n != 0 {
		t.Errorf("Len = %d after Run returned, want 0", n)
	}

	_, err := Run(ctx, Spec{Argv: []string{"true"}})
	if _, ok := errors.AsType[*StartError](err); !ok || !errors.Is(err, ErrShuttingDown) {
		t.Errorf("Run after KillAll: error %v, want a *StartError wrapping ErrShuttingDown", err)
	}
}

// KillAll's group SIGKILL ends every process of a group on its own, as on a
// system with no cgroups, no /proc to sweep and no parent-death signal
// (macOS): a second Ctrl-C there has nothing else. The group is started as
// Run starts it, but nothing reaps it, so only KillAll can have ended the
// leader's child, which ignores SIGTERM.
func TestGroupsKillAllGroupAlone(t *testing.T) {
	t.Parallel()
	g := &Groups{NoCgroup: true, noSweep: true}
	cmd := exec.Command("sh", "-c", stubborn)
	ownGroup(cmd) // without parentDeath
	marker := newMarker()
	cmd.Env = withMarker(os.Environ(), marker)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.start(cmd, marker, ""); err != nil {
		t.Fatal(err)
	}
	leader, reaped := cmd.Process.Pid, false
	t.Cleanup(func() {
		if !reaped { // the unreaped leader keeps its group id reserved
			_ = syscall.Kill(-leader, syscall.SIGKILL)
			_ = cmd.Wait()
		}
	})
	var ps []int
	sc := bufio.NewScanner(stdout)
	for len(ps) < 2 && sc.Scan() {
		ps = append(ps, pids(t, sc.Text())...)
	}
	if len(ps) != 2 {
		t.Fatalf("the script printed %v, want its child's pid and its own", ps)
	}
	if n := g.KillAll(); n != 1 {
		t.Errorf("KillAll = %d, want 1", n)
	}
	assertGone(t, ps, 5*time.Second)
	err = cmd.Wait()
	reaped = true
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("the leader ended with %v, want killed", err)
	}
}

// A Sub tells its owner each group it starts and ends; the root sees them too,
// so the root's KillAll reaches them.
func TestGroupsSubReportsChanges(t *testing.T) {
	t.Parallel()
	root := &Groups{}
	var mu sync.Mutex
	var seen [][]Child
	sub := root.Sub(func(cs []Child) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, cs)
	})
	ctx := WithGroups(t.Context(), sub)
	if _, err := Run(ctx, Spec{Argv: []string{"true"}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || len(seen[0]) != 1 || len(seen[1]) != 0 {
		t.Fatalf("changes seen = %v, want one group then none", seen)
	}
	if c := seen[0][0]; c.PGID <= 0 || c.StartTime == "" && runtime.GOOS == "linux" {
		t.Errorf("child = %+v, want its pgid and start time", c)
	}
	if root.Len() != 0 || sub.Len() != 0 {
		t.Errorf("Len after Run: root %d, sub %d", root.Len(), sub.Len())
	}
}

// onChange is given the live groups sorted by group id, whatever order they
// started in.
func TestGroupsChildrenSorted(t *testing.T) {
	t.Parallel()
	const n = 3
	var mu sync.Mutex
	var all []Child // the first change that saw all n
	allUp := make(chan struct{})
	sub := (&Groups{}).Sub(func(cs []Child) {
		mu.Lock()
		defer mu.Unlock()
		if len(cs) == n && all == nil {
			all = cs
			close(allUp)
		}
	})
	ctx := WithGroups(t.Context(), sub)
	var wg sync.WaitGroup
	var stdins []*io.PipeWriter
	for range n {
		r, w := io.Pipe()
		stdins = append(stdins, w)
		wg.Go(func() {
			if _, err := Run(ctx, Spec{Argv: []string{"cat"}, Stdin: r}); err != nil {
				t.Error(err)
			}
		})
	}
	<-allUp
	for _, w := range stdins {
		_ = w.Close()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < n; i++ {
		if all[i-1].PGID >= all[i].PGID {
			t.Fatalf("children %v, want them sorted by group id", all)
		}
	}
}

// exitStatus of a process that never ran is -1 and no signal.
func TestExitStatusNotStarted(t *testing.T) {
	t.Parallel()
	if code, sig := exitStatus(nil); code != -1 || sig != "" {
		t.Errorf("exitStatus(nil) = %d, %q; want -1, \"\"", code, sig)
	}
}

// EndOrphans ends a group left running by a program that died: SIGTERM first,
// SIGKILL for what ignores it once the grace is over; a recorded group that is
// gone, or whose pid is now another process, is left alone.
func TestEndOrphans(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sh", "-c", stubborn)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, started := lineEvents(2)
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waited) }()
	<-started
	st, _ := StartTime(cmd.Process.Pid)
	orphan := Child{PGID: cmd.Process.Pid, StartTime: st}
	// A live group leader that is not the recorded process, or whose start
	// time was not recorded, is left alone: its pid may have been reused.
	bystander := exec.Command("sleep", "100")
	bystander.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bystander.Process.Kill(); _ = bystander.Wait() }()
	gone := Child{PGID: 999999999}
	reused := Child{PGID: bystander.Process.Pid, StartTime: "not-this-one"}
	unverified := Child{PGID: bystander.Process.Pid}
	found := EndOrphans([]Child{gone, reused, unverified, orphan}, 300*time.Millisecond)
	if len(found) != 1 || found[0] != orphan {
		t.Errorf("EndOrphans = %v, want only %v", found, orphan)
	}
	if !Alive(bystander.Process.Pid) {
		t.Error("EndOrphans ended a group it could not tell was the recorded one")
	}
	<-waited
	assertGone(t, pids(t, out.String()), 2*time.Second)
}
