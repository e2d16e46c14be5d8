package temporal

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
)

// TestWorkerKeepsBoundedWorkTrees: a worker keeps the engines of at most
// MaxWorkTrees runs, dropping the least recently used idle one, never one in a
// step; a dropped run's next step builds its engine afresh.
func TestWorkerKeepsBoundedWorkTrees(t *testing.T) {
	dir := t.TempDir()
	built := map[string]int{}
	s := &Steps{Log: testLogger(), Plan: func(_ context.Context, r RunRef) (*plan.Plan, error) {
		built[r.RunID]++
		return &plan.Plan{Name: r.Name, WorkDir: dir, StateDir: filepath.Join(dir, ".agentloop"), Proc: config.Procedure{Name: "build"}}, nil
	}}
	step := func(id string) (fresh bool, done func()) {
		t.Helper()
		_, _, fresh, done, err := s.engine(t.Context(), RunRef{Name: "r" + id, RunID: id})
		if err != nil {
			t.Fatal(err)
		}
		return fresh, done
	}
	_, busy := step("busy") // in a step all along
	for i := range MaxWorkTrees + 10 {
		_, done := step(fmt.Sprint(i))
		done()
		if i == 100 {
			if fresh, done := step("0"); fresh {
				t.Fatal("run 0 rebuilt while kept")
			} else {
				done() // run 0 is now more recent than 1 to 100
			}
		}
	}
	if len(s.runs) != MaxWorkTrees {
		t.Errorf("%d engines kept, want %d", len(s.runs), MaxWorkTrees)
	}
	if _, ok := s.runs["busy"]; !ok {
		t.Error("the engine of a run in a step was dropped")
	}
	if _, ok := s.runs["0"]; !ok {
		t.Error("run 0, used recently, was dropped before older ones")
	}
	if _, ok := s.runs["1"]; ok {
		t.Error("run 1, the least recently used, was kept")
	}
	if fresh, done := step("1"); !fresh || built["1"] != 2 {
		t.Errorf("a dropped run's next step: fresh %v, plan built %d times; want a fresh engine, built twice", fresh, built["1"])
	} else {
		done()
	}
	busy()
}

// TestDroppedRunGoesOnWhereItWas: a run whose engine the worker dropped after
// its step ended there goes on in the work tree as that step left it, as a
// kept one does (no fetch from the shared remote, no restore: another run's
// file in the clone stays); a run whose last checkpoint is not the one its
// step ended at here (another worker went on with it), or whose step was
// moved here, is restored from its last checkpoint.
func TestDroppedRunGoesOnWhereItWas(t *testing.T) {
	for _, tc := range []struct {
		name    string
		last    func(ended string) string // the step's Last, from the checkpoint the first step ended at
		moved   bool
		restore bool
	}{
		{name: "ended here", last: func(c string) string { return c }},
		{name: "went on elsewhere", last: func(string) string { return "" }, restore: true},
		{name: "moved here", last: func(c string) string { return c }, moved: true, restore: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clone, _ := sharedClones(t)
			other := t.TempDir() // the runs that fill the worker's cache
			s := &Steps{Log: testLogger(), Remote: "origin", Plan: checkpointed(t, func(r RunRef) string {
				if r.RunID != "r1" {
					return other
				}
				return clone
			})}
			env := stepEnv(s)
			step := func(in StepInput) state.StepResult {
				t.Helper()
				v, err := env.ExecuteActivity(ActivityStep, in)
				if err != nil {
					t.Fatalf("iteration %d: %v", in.Request.Iteration, err)
				}
				var res state.StepResult
				if err := v.Get(&res); err != nil {
					t.Fatal(err)
				}
				return res
			}
			in := StepInput{
				Run:     RunRef{Name: "build", RunID: "r1", Procedure: "build", WorkDir: clone},
				Request: loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Seq: 1, Attempt: 1, Timeout: time.Minute},
			}
			first := step(in)
			if first.Checkpoint == "" {
				t.Fatal("the first iteration took no checkpoint")
			}
			for i := range MaxWorkTrees {
				_, _, _, done, err := s.engine(t.Context(), RunRef{Name: "o", RunID: fmt.Sprint(i)})
				if err != nil {
					t.Fatal(err)
				}
				done()
			}
			if _, ok := s.runs["r1"]; ok {
				t.Fatal("run r1's engine was kept: nothing tests its drop")
			}
			writeIn(t, clone, "other.txt", "another run's work\n")
			in.Request.Iteration, in.Request.Seq = 2, 2
			in.Last, in.Moved = tc.last(first.Checkpoint), tc.moved
			if in.Last == "" {
				in.Last = gitIn(t, clone, "rev-parse", "HEAD")[:40]
			}
			step(in)
			_, err := os.Stat(filepath.Join(clone, "other.txt"))
			if restored := err != nil; restored != tc.restore {
				t.Errorf("the work tree restored from the run's last checkpoint: %v, want %v", restored, tc.restore)
			}
		})
	}
}

// TestRetriedIterationRestoreTriedAgain: a retried iteration's restore that
// git fails once (another run's agent wrote a file into the work tree they
// share as git restored it) is tried again, and the step goes on; one that
// fails every time fails the step.
func TestRetriedIterationRestoreTriedAgain(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fails int // read-tree calls the wrapper fails
		ok    bool
	}{
		{name: "fails once", fails: 1, ok: true},
		{name: "fails always", fails: 1000, ok: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clone, _ := sharedClones(t)
			real, err := exec.LookPath("git")
			if err != nil {
				t.Fatal(err)
			}
			bin, count := t.TempDir(), filepath.Join(t.TempDir(), "read-tree")
			wrapper := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = read-tree ]; then\n  echo x >>%q\n  if [ $(wc -l <%q) -le %d ]; then echo 'error: unable to create file work.txt: File exists' >&2; exit 128; fi\nfi\nexec %q \"$@\"\n", count, count, tc.fails, real)
			if err := os.WriteFile(filepath.Join(bin, "git"), []byte(wrapper), 0o755); err != nil {
				t.Fatal(err)
			}
			planOf := checkpointed(t, func(RunRef) string { return clone })
			worker := func() *testsuite.TestActivityEnvironment {
				return stepEnv(&Steps{Log: testLogger(), Plan: planOf})
			}
			env := worker()
			in := StepInput{
				Run:     RunRef{Name: "build", RunID: "r1", Procedure: "build", WorkDir: clone},
				Request: loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Seq: 1, Attempt: 1, Timeout: time.Minute},
			}
			v, err := env.ExecuteActivity(ActivityStep, in)
			if err != nil {
				t.Fatal(err)
			}
			var first state.StepResult
			if err := v.Get(&first); err != nil || first.Checkpoint == "" {
				t.Fatalf("the first iteration: %v, checkpoint %q", err, first.Checkpoint)
			}
			// The next iteration comes to a worker started again: the run's
			// work tree is restored from its last checkpoint, with git
			// failing.
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			in.Request.Iteration, in.Request.Seq = 2, 2
			in.Last = first.Checkpoint
			_, err = worker().ExecuteActivity(ActivityStep, in)
			if (err == nil) != tc.ok {
				t.Errorf("the step after a restore git failed %d times: %v, want ok %v", tc.fails, err, tc.ok)
			}
			b, _ := os.ReadFile(count)
			if n := strings.Count(string(b), "x"); n < min(tc.fails+1, restartTries) {
				t.Errorf("read-tree ran %d times: the restore was not tried again", n)
			}
		})
	}
}

// checkpointed is a worker's plan of a run that checkpoints in the work tree
// dir names for it, its agent appending a line to work.txt.
func checkpointed(t *testing.T, dir func(RunRef) string) func(context.Context, RunRef) (*plan.Plan, error) {
	a := shAgent(t, "cat >/dev/null; echo x >> work.txt")
	return func(_ context.Context, r RunRef) (*plan.Plan, error) {
		d := dir(r)
		return &plan.Plan{
			Name: r.Name, WorkDir: d, StateDir: filepath.Join(d, ".agentloop"),
			Proc: config.Procedure{Name: "build", Git: config.Git{Checkpoint: true}}, Agent: a, KillGrace: time.Second,
		}, nil
	}
}

// stepEnv is an activity test environment running the step activity of s.
func stepEnv(s *Steps) *testsuite.TestActivityEnvironment {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(s.Step, activity.RegisterOptions{Name: ActivityStep})
	return env
}

// TestKeptRunComesBackFromElsewhere: a run whose engine a worker kept went on
// on another worker (this one was counted gone), and its next step comes
// back here: the work tree is brought to the run's last checkpoint, fetched
// from the shared remote, before the agent runs, not left where the run's
// step here left it.
func TestKeptRunComesBackFromElsewhere(t *testing.T) {
	here, there := sharedClones(t)
	worker := func(clone string) *testsuite.TestActivityEnvironment {
		return stepEnv(&Steps{Log: testLogger(), Remote: "origin", Plan: checkpointed(t, func(RunRef) string { return clone })})
	}
	a, b := worker(here), worker(there)
	step := func(env *testsuite.TestActivityEnvironment, in StepInput) state.StepResult {
		t.Helper()
		v, err := env.ExecuteActivity(ActivityStep, in)
		if err != nil {
			t.Fatalf("iteration %d: %v", in.Request.Iteration, err)
		}
		var res state.StepResult
		if err := v.Get(&res); err != nil || res.Checkpoint == "" {
			t.Fatalf("iteration %d: %v, checkpoint %q", in.Request.Iteration, err, res.Checkpoint)
		}
		return res
	}
	in := StepInput{
		Run:     RunRef{Name: "build", RunID: "r1", Procedure: "build", WorkDir: here},
		Request: loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Seq: 1, Attempt: 1, Timeout: time.Minute},
	}
	in.Last = step(a, in).Checkpoint
	in.Request.Iteration, in.Request.Seq, in.Moved = 2, 2, true
	in.Last = step(b, in).Checkpoint
	in.Request.Iteration, in.Request.Seq = 3, 3
	step(a, in)
	b1, _ := os.ReadFile(filepath.Join(here, "work.txt"))
	if n := strings.Count(string(b1), "x"); n != 3 {
		t.Errorf("work.txt back on the first worker has %d lines, want 3 (one per iteration, the second's from the other worker): %q", n, b1)
	}
}
