//go:build temporal

package temporal_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/agentloop/agentloop/internal/temporal"
)

// outage is how long the server is down while a run is followed: longer than
// the 30 s a follower used to give a server that did not answer, counted from
// its first query that timed out (10 s into the outage).
const outage = 45 * time.Second

// TestFollowerOutlastsAServerOutage: the dev server is down for longer than
// a follower used to wait for it while `agentloop run` follows a run whose
// agent is at work; the follower says once that it cannot reach the server,
// goes on following, and exits with the run's own outcome (aborted: 3) once
// the server is back and the run ended. With its worker gone, status and
// report read the ended run from its history.
func TestFollowerOutlastsAServerOutage(t *testing.T) {
	f := newFleet(t)
	work := f.repo("work")[0]
	started, release := filepath.Join(f.dir, "started"), filepath.Join(f.dir, "release")
	f.plan("[*]\nwrite " + started + " yes\nwaitfor " + release + "\nexit 1\n")
	w := f.start(work, "worker", "--allow-cmd", "fakeagent")
	// A heartbeat timeout beyond the outage: the step goes on through it.
	run := f.start(work, "run", "--engine", "temporal", "--agent-cmd", "fakeagent", "--max-iterations", "3", "--failure-threshold", "1", "--heartbeat-timeout", "2m")
	f.waitFile(started)
	f.srv.Kill()
	time.Sleep(outage) // the outage itself: nothing to wait on
	select {
	case <-run.done:
		t.Fatalf("the follower gave up during the outage:\n%s", run.out.String())
	default:
	}
	f.srv.Restart(t)
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code := run.wait(t, 2*time.Minute)
	out := run.out.String()
	if code != 3 {
		t.Fatalf("run exited %d, want 3 (the run aborted):\n%s", code, out)
	}
	if n := strings.Count(out, "cannot be reached"); n != 1 || !strings.Contains(out, "answers again") {
		t.Errorf("the follower said %d times that the server cannot be reached, want once, then that it answers again:\n%s", n, out)
	}
	// The run's workflow closes once its last files are kept on the worker:
	// then the worker goes, and nothing answers a query.
	f.closed("build")
	w.kill()
	code, out = f.run(work, "status", "build", "--engine", "temporal")
	if code != 0 || !strings.Contains(out, "aborted") {
		t.Errorf("status with no worker exited %d, want 0 and the run aborted:\n%s", code, out)
	}
	code, out = f.run(work, "report", "build", "--engine", "temporal")
	if code != 0 || !strings.Contains(out, "aborted") {
		t.Errorf("report with no worker exited %d, want 0 and the run aborted:\n%s", code, out)
	}
}

// closed waits until the workflow of the run name (of whichever repository
// started it) has closed.
func (f *fleet) closed(name string) {
	f.t.Helper()
	c := f.srv.Dial(f.t)
	defer c.Close()
	ctx, cancel := context.WithTimeout(f.t.Context(), time.Minute)
	defer cancel()
	keys, err := temporal.Names(ctx, c)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, k := range keys {
		if n, _ := temporal.Unscoped(k); n == name {
			err := c.GetWorkflow(ctx, temporal.WorkflowID(k), "").Get(ctx, nil)
			if _, failed := errors.AsType[*sdktemporal.WorkflowExecutionError](err); err != nil && !failed {
				f.t.Fatalf("the workflow of run %s did not close: %v", name, err)
			}
			return
		}
	}
	f.t.Fatalf("no run %s on the server", name)
}
