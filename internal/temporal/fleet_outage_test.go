//go:build temporal && unix

package temporal_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/testenv"
)

// outage is how long the server is down while the runs are followed: longer
// than the 30 s a follower used to give a server that did not answer, counted
// from its first query that timed out (10 s into the outage).
const outage = 45 * time.Second

// outageLoops is how many runs go through the outage at once, each in its own
// repository, each followed by its own `agentloop run` (run in the test's
// process: 50 race-built processes cost more than the rest of the test). On a
// 2-core machine, race-built, the test took 98-170 s at loads of 5-17; at a
// load of 7 its processes took 58 s of CPU: the dev server 15 s, the worker
// 14 s, its agents and git 15 s, the followers and the test 10 s.
const outageLoops = 50

// startsAtOnce is how many runs start at once.
const startsAtOnce = 5

// atWork is how long the test waits for every run's agent to be at work once
// the last run started (on a loaded 2-core machine each run's first steps,
// its baseline, take seconds, and the dev server takes them in turn).
const atWork = 4 * time.Minute

// afterOutage is how long the test waits for every follower to end once the
// server is started again: the steps lost in the outage wait for their
// heartbeat timeout (30 s) before they run again.
const afterOutage = 4 * time.Minute

// startedOn is what `agentloop run` says once its run's workflow started.
const startedOn = "started on Temporal"

// outageKind is what a run is started with: the flags of a run and what it
// ends as (the agent is the same for all: it waits for the test's go-ahead,
// then writes done.txt).
type outageKind struct {
	flags      []string
	status     state.Status
	code       int // the follower's exit code
	iterations int
}

// outageKinds are the runs' kinds, taken in turn.
var outageKinds = []outageKind{
	{[]string{"--gate", "test -f done.txt", "--max-iterations", "3"}, state.StatusSucceeded, 0, 1},
	{[]string{"--max-iterations", "1"}, state.StatusCompleted, 0, 1},
	{[]string{"--gate", "test -f never.txt", "--max-iterations", "2", "--failure-threshold", "5"}, state.StatusEscalated, 4, 2},
	// The failure threshold after an iteration that changed the code hands
	// over: escalated, with the pattern and a question (not aborted).
	{[]string{"--gate", "test -f never.txt", "--max-iterations", "3", "--failure-threshold", "1"}, state.StatusEscalated, 4, 1},
}

// outageRun is one run of the outage test: its repository, its kind and its
// follower.
type outageRun struct {
	name, clone string
	kind        outageKind
	follower    *proc
}

// String names the run in a failure's message: its repository and what it
// should end as.
func (r *outageRun) String() string {
	return fmt.Sprintf("the run of %s (to end %s)", r.name, r.kind.status)
}

// saw is what the run's follower printed so far.
func (r *outageRun) saw() string {
	return "its follower printed:\n" + r.follower.out.String()
}

// ended reports whether the run's follower ended.
func (r *outageRun) ended() bool {
	select {
	case <-r.follower.done:
		return true
	default:
		return false
	}
}

// TestFollowersOutlastAServerOutage: 50 runs, each in its own repository and
// followed by its own `agentloop run`, are at work on one worker (their agents
// waiting for the test's go-ahead) when the dev server is killed; it is down
// for longer than a follower used to wait for it and than the steps'
// heartbeat timeout, then started again on its file and port. Each follower
// says that it cannot reach the server, goes on following, and exits with its
// own run's outcome (succeeded, completed or escalated, by the run's flags), each run's iterations counted once (the steps lost in the outage
// run again). With the worker gone, status and report read an ended run from
// its history.
func TestFollowersOutlastAServerOutage(t *testing.T) {
	f := newFleet(t)
	names, clones := f.repos(outageLoops)
	// A shell, not the fake agent: many agents at once on a loaded machine.
	// Each waits for the test's go-ahead in flock, on a lock the test holds
	// until then: no agent polls (50 agents polling with sleep 0.5 cost more
	// CPU than the server), and an agent run again after the outage, once
	// the lock is free, goes straight on.
	lock := f.hold(filepath.Join(f.dir, "go-ahead"))
	agent := "echo yes > started; flock -s " + lock.Name() + " true; echo done > done.txt"
	w := f.start(clones[0], "worker", "--max-agents", strconv.Itoa(2*outageLoops),
		"--allow-cmd", agent, "--allow-cmd", "test -f done.txt", "--allow-cmd", "test -f never.txt")
	began := time.Now()
	runs := make([]*outageRun, len(clones))
	for i, c := range clones {
		if i >= startsAtOnce {
			// A few start at once: the test is of the outage, not of a
			// loaded server taking 50 starts in one go.
			f.waitStarted(runs[i-startsAtOnce])
		}
		r := &outageRun{name: names[i], clone: c, kind: outageKinds[i%len(outageKinds)]}
		// The default heartbeat timeout (30 s) is shorter than the outage:
		// the steps under way when it began are run again after it.
		r.follower = f.follow(c, append([]string{"run", "--engine", "temporal", "--agent-cmd", agent}, r.kind.flags...)...)
		runs[i] = r
	}
	f.atWork(runs)
	t.Logf("%d runs started and their agents at work in %s", len(runs), time.Since(began).Round(time.Second))
	f.srv.Kill()
	time.Sleep(outage) // the outage itself: nothing to wait on
	for _, r := range runs {
		if r.ended() {
			t.Fatalf("the follower of %s gave up during the outage; %s", r, r.saw())
		}
	}
	back := time.Now()
	f.srv.Restart(t)
	if err := lock.Close(); err != nil { // the go-ahead
		t.Fatal(err)
	}
	deadline := time.After(afterOutage)
	for _, r := range runs {
		select {
		case <-r.follower.done:
		case <-deadline:
			t.Fatalf("the follower of %s still follows %s after the server was started again; the server says %s; %s",
				r, afterOutage, f.stateOf(r), r.saw())
		}
		out := r.follower.out.String()
		if r.follower.code != r.kind.code {
			t.Errorf("the follower of %s exited %d, want %d; the server says %s; %s", r, r.follower.code, r.kind.code, f.stateOf(r), r.saw())
		}
		// A loaded server may miss a query before or after the outage too:
		// the follower says so each time, and that it answers again.
		if last := strings.LastIndex(out, "cannot be reached"); last < 0 || !strings.Contains(out[last:], "answers again") {
			t.Errorf("the follower of %s did not say that the server cannot be reached, then that it answers again; %s", r, r.saw())
		}
	}
	t.Logf("all %d followers ended %s after the server was started again", len(runs), time.Since(back).Round(time.Second))
	for _, r := range runs {
		v := f.query(keyIn(r.clone, "build"))
		if v.State.Status != r.kind.status {
			t.Errorf("%s ended %s (%s)", r, v.State.Status, v.State.Reason)
		}
		if err := iterationsOnce(v, r.kind.iterations); err != nil {
			t.Errorf("%s: %v", r, err)
		}
	}
	// A run's workflow closes once its last files are kept on the worker:
	// then the worker goes, and nothing answers a query.
	ended := clones[1] // completed: its workflow closes (an escalated one waits for a person)
	f.closed(keyIn(ended, "build"))
	w.kill()
	code, out := f.run(ended, "status", "build", "--engine", "temporal")
	if code != 0 || !strings.Contains(out, "completed") {
		t.Errorf("status with no worker exited %d, want 0 and the run completed:\n%s", code, out)
	}
	code, out = f.run(ended, "report", "build", "--engine", "temporal")
	if code != 0 || !strings.Contains(out, "completed") {
		t.Errorf("report with no worker exited %d, want 0 and the run completed:\n%s", code, out)
	}
}

// waitStarted waits until the follower of r says its run started.
func (f *fleet) waitStarted(r *outageRun) {
	f.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(r.follower.out.String(), startedOn) {
		if r.ended() || time.Now().After(deadline) {
			f.t.Fatalf("%s did not start; %s", r, r.saw())
		}
		time.Sleep(50 * time.Millisecond) // output of the command line: nothing to wait on
	}
}

// atWork waits until the agent of every run is at work (it wrote started),
// [atWork] at most.
func (f *fleet) atWork(runs []*outageRun) {
	f.t.Helper()
	deadline := time.Now().Add(atWork)
	for _, r := range runs {
		for {
			if _, err := os.Stat(filepath.Join(r.clone, "started")); err == nil {
				break
			}
			if r.ended() || time.Now().After(deadline) {
				f.t.Fatalf("the agent of %s is not at work; the server says %s; %s", r, f.stateOf(r), r.saw())
			}
			time.Sleep(50 * time.Millisecond) // a file written by another process: nothing to wait on
		}
	}
}

// stateOf says how the server sees r's run, for a failure's message.
func (f *fleet) stateOf(r *outageRun) string {
	c, err := temporal.Dial(f.t.Context(), temporal.Server{Address: f.srv.Addr(), Namespace: "default"}, slog.New(slog.DiscardHandler))
	if err != nil {
		return fmt.Sprintf("nothing (%v)", err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(f.t.Context(), 30*time.Second)
	defer cancel()
	v, err := temporal.Query(ctx, c, keyIn(r.clone, "build"))
	if err != nil {
		return fmt.Sprintf("nothing (%v)", err)
	}
	var ran []int
	for _, h := range v.State.History {
		ran = append(ran, h.N)
	}
	return fmt.Sprintf("%s (%s) after iterations %v, waiting %t", v.State.Status, v.State.Reason, ran, v.Waiting)
}

// hold creates the file and holds an exclusive flock on it until the file
// returned is closed (or the test's process ends).
func (f *fleet) hold(path string) *os.File {
	f.t.Helper()
	testenv.NeedTool(f.t, "flock")
	l, err := os.Create(path)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { l.Close() })
	if err := syscall.Flock(int(l.Fd()), syscall.LOCK_EX); err != nil {
		f.t.Fatal(err)
	}
	return l
}

// closed waits until the workflow of the run key has closed.
func (f *fleet) closed(key string) {
	f.t.Helper()
	c := f.srv.Dial(f.t)
	defer c.Close()
	ctx, cancel := context.WithTimeout(f.t.Context(), time.Minute)
	defer cancel()
	err := c.GetWorkflow(ctx, temporal.WorkflowID(key), "").Get(ctx, nil)
	if _, failed := errors.AsType[*sdktemporal.WorkflowExecutionError](err); err != nil && !failed {
		f.t.Fatalf("the workflow of run %s did not close: %v", key, err)
	}
}
