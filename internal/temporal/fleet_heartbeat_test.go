//go:build temporal && unix

package temporal_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/state"
)

// loadedRuns is how many runs a loaded worker runs at once in
// TestLoadedWorkerKeepsItsHeartbeats: more busy agents than the machine's
// cores.
const loadedRuns = 6

// TestLoadedWorkerKeepsItsHeartbeats: one worker runs 6 runs at once, each of
// 2 iterations whose agent keeps a core busy for 4 s and prints nothing, with
// a heartbeat timeout of 3 s: the worker's heartbeat, not the agent's output,
// tells the server each step is alive. Every run completes, its 2 iterations
// counted once each; none aborted. A heartbeat the server misses on a loaded
// machine only runs the step again (logged: the agent called again); with the
// heartbeat off, or an interval that does not follow the timeout, every
// attempt of every step is taken for lost and no run ends.
func TestLoadedWorkerKeepsItsHeartbeats(t *testing.T) {
	f := newFleet(t)
	names, clones := f.repos(loadedRuns)
	calls := filepath.Join(f.dir, "calls")
	agent := "echo $PWD >> " + calls + "; timeout 4 sh -c 'while :; do :; done'; exit 0"
	f.start(clones[0], "worker", "--max-agents", strconv.Itoa(2*loadedRuns), "--allow-cmd", agent)
	began := time.Now()
	runs := make([]*proc, len(clones))
	for i, c := range clones {
		runs[i] = f.follow(c, "run", "--engine", "temporal", "--agent-cmd", agent, "--max-iterations", "2", "--heartbeat-timeout", "3s")
	}
	for i, r := range runs {
		// Minutes: a step run again waits for its retry's backoff.
		if code := r.wait(t, 4*time.Minute-time.Since(began)); code != 0 {
			t.Errorf("run in %s exited %d, want 0 (completed):\n%s", names[i], code, r.out.String())
		}
	}
	called := map[string]int{}
	for _, dir := range strings.Fields(f.read(calls)) {
		called[dir]++
	}
	again := 0
	for i, c := range clones {
		again += called[c] - 2
		v := f.query(keyIn(c, "build"))
		if v.State.Status != state.StatusCompleted {
			t.Errorf("run in %s %s (%s), want completed", names[i], v.State.Status, v.State.Reason)
		}
		checkIterations(t, v, 2)
	}
	t.Logf("%d runs of 2 busy iterations ended in %s; their agents were called %d times beyond their iterations (steps run again after a missed heartbeat)", len(runs), time.Since(began).Round(time.Second), again)
}
