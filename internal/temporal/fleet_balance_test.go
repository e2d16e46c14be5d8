//go:build temporal && unix

package temporal_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/state"
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
		if v := f.query(keyIn(c, "build")); v.State.Status != state.StatusCompleted {
			t.Errorf("run in %s %s (%s), want completed", names[i], v.State.Status, v.State.Reason)
		}
	}
	if len(by["a"])+len(by["b"]) != len(clones) || len(by["b"]) == 0 {
		t.Errorf("the agents ran on worker a in %v and on worker b, started later, in %v: want the six once each, some on b", by["a"], by["b"])
	}
}

// TestWorkerTakesFirstStepsWhileTheirPushesWait: six runs, each in its own
// clone of one remote, on a worker of one place pushing checkpoints to that
// remote, whose pushes hang (a pre-receive hook waits for the test). Each
// run's first step takes its start checkpoint and waits for its push, its
// place given away; such a step does not count among the steps the worker
// takes from the shared queue (its place and two more), so every run's push
// starts. Before, the worker held three steps waiting for pushes, and the
// other runs waited on the server for a worker with room.
func TestWorkerTakesFirstStepsWhileTheirPushesWait(t *testing.T) {
	f := newFleet(t)
	names, clones := f.repos(6)
	hooked, open := filepath.Join(f.dir, "hooked"), filepath.Join(f.dir, "open")
	hook := "#!/bin/sh\ncat >/dev/null\necho push >> " + hooked + "\nwhile [ ! -e " + open + " ]; do sleep 0.1; done\n"
	if err := os.WriteFile(filepath.Join(f.dir, "remote.git", "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	agent := `echo done > done.txt`
	f.start(clones[0], "worker", "--max-agents", "1", "--queue", "machine-a", "--checkpoint-remote", "origin", "--allow-cmd", agent)
	runs := make([]*proc, len(clones))
	for i, c := range clones {
		runs[i] = f.follow(c, "run", "--engine", "temporal", "--agent-cmd", agent, "--max-iterations", "1")
	}
	deadline := time.Now().Add(time.Minute)
	pushes := 0
	for ; pushes < len(clones) && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		b, _ := os.ReadFile(hooked)
		pushes = strings.Count(string(b), "push")
	}
	if pushes < len(clones) {
		t.Errorf("%d runs' start checkpoints were being pushed after a minute, want all %d: the steps waiting for them held the worker's room for others", pushes, len(clones))
	}
	if err := os.WriteFile(open, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, r := range runs {
		if code := r.wait(t, 2*time.Minute); code != 0 {
			t.Errorf("run in %s exited %d, want 0 (completed):\n%s", names[i], code, r.out.String())
		}
		if got := f.read(filepath.Join(clones[i], "done.txt")); got != "done\n" {
			t.Errorf("%s: done.txt = %q, want the agent's", names[i], got)
		}
	}
}
