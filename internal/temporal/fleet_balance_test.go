//go:build temporal

package temporal_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/loop"
)

// TestLateWorkerTakesWaitingRuns: six runs start while one worker of one
// place is up, each an iteration whose agent takes 3 s; a second worker of
// one place starts once the first agent is at work. The first worker takes
// from the shared queue only the steps it can start soon, so the runs left
// waiting on the server go to the second as well. Before, the first took
// all six at once and held them (heartbeating each as it waited), and the
// second ran none.
func TestLateWorkerTakesWaitingRuns(t *testing.T) {
	f := newFleet(t)
	names, clones := f.repos(6)
	calls := filepath.Join(f.dir, "calls")
	agent := `echo "$WORKER $PWD" >> ` + calls + `; sleep 3`
	worker := func(name string) {
		env := f.env
		f.env = append(slices.Clone(env), "WORKER="+name)
		f.start(clones[0], "worker", "--max-agents", "1", "--queue", "machine-"+name, "--allow-cmd", agent)
		f.env = env
	}
	worker("a")
	runs := make([]*proc, len(clones))
	for i, c := range clones {
		runs[i] = f.follow(c, "run", "--engine", "temporal", "--agent-cmd", agent, "--max-iterations", "1")
	}
	f.waitFile(calls)
	worker("b")
	for i, r := range runs {
		if code := r.wait(t, 2*time.Minute); code != 0 {
			t.Errorf("run in %s exited %d, want 0 (completed):\n%s", names[i], code, r.out.String())
		}
	}
	by := map[string][]string{}
	for line := range strings.Lines(f.read(calls)) {
		w, dir, _ := strings.Cut(strings.TrimSpace(line), " ")
		by[w] = append(by[w], filepath.Base(dir))
	}
	for i, c := range clones {
		if v := f.query(keyIn(c, "build")); v.State.Status != loop.StatusCompleted {
			t.Errorf("run in %s %s (%s), want completed", names[i], v.State.Status, v.State.Reason)
		}
	}
	if len(by["a"])+len(by["b"]) != len(clones) || len(by["b"]) == 0 {
		t.Errorf("the agents ran on worker a in %v and on worker b, started later, in %v: want the six once each, some on b", by["a"], by["b"])
	}
}
