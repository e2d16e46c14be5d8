//go:build temporal

package temporal_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/temporal"
)

// outage is how long the server is down while the runs are followed: longer
// than the 30 s a follower used to give a server that did not answer, counted
// from its first query that timed out (10 s into the outage).
const outage = 45 * time.Second

// outageLoops is how many runs go through the outage at once, each in its own
// repository, each followed by its own `agentloop run` (run in the test's
// process: 50 race-built processes cost more than the rest of the test). The
// issue asks for 50: on a 2-core machine at a load of 10-20 the test took 3m03s
// with 50 (1m11s to have their agents at work), 83 s with 20; at a load of
// 30-50, 20 took 1m22s-2m40s to be at work, 50 not within 10 minutes.
const outageLoops = 20

// startsAtOnce is how many runs start at once.
const startsAtOnce = 5

// atWork is how long the test waits for each run's agent to be at work once
// all started (on a loaded 2-core machine each run's first steps, its
// baseline, take seconds, and the dev server takes them in turn).
const atWork = 4 * time.Minute

// startedOn is what `agentloop run` says once its run's workflow started.
var startedOn = regexp.MustCompile(`(started on Temporal)`)

// outageKinds are the runs' kinds, taken in turn: the flags of a run and what
// it ends as (the agent is the same for all: it waits for the test's go-ahead,
// then writes done.txt).
var outageKinds = []struct {
	flags      []string
	status     loop.Status
	code       int // the follower's exit code
	iterations int
}{
	{[]string{"--gate", "test -f done.txt", "--max-iterations", "3"}, loop.StatusSucceeded, 0, 1},
	{[]string{"--max-iterations", "1"}, loop.StatusCompleted, 0, 1},
	{[]string{"--gate", "test -f never.txt", "--max-iterations", "2", "--failure-threshold", "5"}, loop.StatusEscalated, 4, 2},
	{[]string{"--gate", "test -f never.txt", "--max-iterations", "3", "--failure-threshold", "1"}, loop.StatusAborted, 3, 1},
}

// TestFollowersOutlastAServerOutage: 20 runs, each in its own repository and
// followed by its own `agentloop run`, are at work on one worker (their agents
// waiting for the test's go-ahead) when the dev server is killed; it is down
// for longer than a follower used to wait for it and than the steps'
// heartbeat timeout, then started again on its file and port. Each follower
// says that it cannot reach the server, goes on following, and exits with its
// own run's outcome (succeeded, completed, escalated or aborted, by the run's
// flags), each run's iterations counted once (the steps lost in the outage
// run again). With the worker gone, status and report read an ended run from
// its history.
func TestFollowersOutlastAServerOutage(t *testing.T) {
	f := newFleet(t)
	names, clones := f.repos(outageLoops)
	release := filepath.Join(f.dir, "release")
	// A shell, not the fake agent: many agents at once on a loaded machine.
	agent := "echo yes > started; while [ ! -f " + release + " ]; do sleep 0.5; done; echo done > done.txt"
	w := f.start(clones[0], "worker", "--max-agents", strconv.Itoa(2*outageLoops),
		"--allow-cmd", agent, "--allow-cmd", "test -f done.txt", "--allow-cmd", "test -f never.txt")
	began := time.Now()
	runs := make([]*proc, len(clones))
	for i, c := range clones {
		if i >= startsAtOnce {
			// A few start at once: the test is of the outage, not of a
			// loaded server taking 50 starts in one go.
			f.waitOutput(runs[i-startsAtOnce], startedOn)
		}
		// The default heartbeat timeout (30 s) is shorter than the outage:
		// the steps under way when it began are run again after it.
		runs[i] = f.follow(c, append([]string{"run", "--engine", "temporal", "--agent-cmd", agent}, outageKinds[i%len(outageKinds)].flags...)...)
	}
	for _, c := range clones {
		f.waitFileFor(filepath.Join(c, "started"), atWork)
	}
	t.Logf("%d runs started and their agents at work in %s", len(clones), time.Since(began).Round(time.Second))
	f.srv.Kill()
	time.Sleep(outage) // the outage itself: nothing to wait on
	for i, r := range runs {
		select {
		case <-r.done:
			t.Fatalf("the follower of %s gave up during the outage:\n%s", names[i], r.out.String())
		default:
		}
	}
	back := time.Now()
	f.srv.Restart(t)
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, r := range runs {
		k := outageKinds[i%len(outageKinds)]
		code := r.wait(t, 3*time.Minute)
		out := r.out.String()
		if code != k.code {
			t.Errorf("the follower of %s exited %d, want %d (the run %s):\n%s", names[i], code, k.code, k.status, out)
		}
		// A loaded server may miss a query before or after the outage too:
		// the follower says so each time, and that it answers again.
		if last := strings.LastIndex(out, "cannot be reached"); last < 0 || !strings.Contains(out[last:], "answers again") {
			t.Errorf("the follower of %s did not say that the server cannot be reached, then that it answers again:\n%s", names[i], out)
		}
	}
	t.Logf("all %d followers ended %s after the server was started again", len(runs), time.Since(back).Round(time.Second))
	for i, c := range clones {
		k := outageKinds[i%len(outageKinds)]
		v := f.query(keyIn(c, "build"))
		if v.State.Status != k.status {
			t.Errorf("run of %s %s (%s), want %s", names[i], v.State.Status, v.State.Reason, k.status)
		}
		checkIterations(t, v, k.iterations)
	}
	// A run's workflow closes once its last files are kept on the worker:
	// then the worker goes, and nothing answers a query.
	aborted := clones[3]
	f.closed(keyIn(aborted, "build"))
	w.kill()
	code, out := f.run(aborted, "status", "build", "--engine", "temporal")
	if code != 0 || !strings.Contains(out, "aborted") {
		t.Errorf("status with no worker exited %d, want 0 and the run aborted:\n%s", code, out)
	}
	code, out = f.run(aborted, "report", "build", "--engine", "temporal")
	if code != 0 || !strings.Contains(out, "aborted") {
		t.Errorf("report with no worker exited %d, want 0 and the run aborted:\n%s", code, out)
	}
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
