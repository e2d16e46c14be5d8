package temporal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// TestNewerAttemptStopsTheOlderOnItsWorker: an attempt of a run's step is
// still under way on a worker (its agent runs on) when the server starts the
// step again and the newer attempt comes to the same worker, where the run's
// engine and work tree are. The newer one stops the older and starts its
// agent only once the older's agent has ended: the two never edit the work
// tree together, and the older attempt fails as superseded, reporting
// nothing. Run with -race: without the turns, the two attempts share the
// run's engine at once.
func TestNewerAttemptStopsTheOlderOnItsWorker(t *testing.T) {
	dir := t.TempDir()
	// The first agent writes its PID and runs until it is stopped; the
	// second says whether the first is still alive as it starts.
	s := &Steps{Log: testLogger(), Plan: planIn(shAgent(t, `cat >/dev/null
if [ -e first.pid ]; then
	if kill -0 "$(cat first.pid)" 2>/dev/null; then echo together; else echo alone; fi > second.txt
else
	echo $$ > first.pid.tmp && mv first.pid.tmp first.pid
	exec sleep 30
fi`))}
	in := StepInput{
		Run:     RunRef{Name: "build", RunID: "r1", Procedure: "build", WorkDir: dir},
		Request: loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Seq: 1, Attempt: 1, Timeout: time.Minute},
	}
	attempt := func() (state.StepResult, error) {
		var suite testsuite.WorkflowTestSuite
		env := suite.NewTestActivityEnvironment()
		env.RegisterActivityWithOptions(s.Step, activity.RegisterOptions{Name: ActivityStep})
		v, err := env.ExecuteActivity(ActivityStep, in)
		if err != nil {
			return state.StepResult{}, err
		}
		var out StepOutput
		err = v.Get(&out)
		return out.StepResult, err
	}
	older := make(chan error, 1)
	go func() {
		_, err := attempt()
		older <- err
	}()
	waitFile(t, filepath.Join(dir, "first.pid"), 30*time.Second)
	res, err := attempt()
	if err != nil {
		t.Fatalf("the newer attempt: %v", err)
	}
	if res.Iteration.Agent.ExitCode != 0 {
		t.Errorf("the newer attempt's agent exited %d, want 0", res.Iteration.Agent.ExitCode)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "second.txt")); err != nil || strings.TrimSpace(string(b)) != "alone" {
		t.Errorf("the newer attempt's agent saw the older one's: %q, %v; want it alone", b, err)
	}
	select {
	case err := <-older:
		if err == nil || !strings.Contains(err.Error(), errSuperseded.Error()) {
			t.Errorf("the older attempt ended with %v, want it superseded", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the older attempt did not end")
	}
}

// TestOlderAttemptArrivingLateIsSuperseded: an attempt the server started
// before the one under way on the worker is refused at once, without
// stopping the newer one.
func TestOlderAttemptArrivingLateIsSuperseded(t *testing.T) {
	s := &Steps{Log: testLogger()}
	now := time.Now()
	newer := &turn{started: now, attempt: 2, stop: func(error) { t.Error("the newer attempt was stopped") }, done: make(chan struct{})}
	s.turns = map[string]*turn{"r1": newer}
	for _, tc := range []struct {
		name string
		old  turn
	}{
		{name: "started before", old: turn{started: now.Add(-time.Second), attempt: 3}},
		{name: "same start, lower attempt", old: turn{started: now, attempt: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.old.newer(newer) {
				t.Fatalf("%+v is newer than %+v", tc.old, newer)
			}
		})
	}
	if !(&turn{started: now, attempt: 3}).newer(newer) || !(&turn{started: now.Add(time.Second), attempt: 1}).newer(newer) {
		t.Error("a later attempt is not newer")
	}
	if _, _, err := s.takeTurn(t.Context(), "r1"); !errors.Is(err, errSuperseded) {
		// Outside an activity, the attempt has no start: older than any.
		t.Errorf("an attempt older than the one under way: %v, want superseded", err)
	}
	if s.turns["r1"] != newer {
		t.Error("the newer attempt lost its turn to an older one")
	}
}

// waitFile waits until path exists.
func waitFile(t *testing.T, path string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within %s", path, within)
		}
		time.Sleep(20 * time.Millisecond) // a file another process writes: no event to wait on
	}
}
