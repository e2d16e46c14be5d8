package temporal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
)

// TestStepActivityRunsTheLocalSteps: the step activity rebuilds the run's plan
// on the worker and runs the local engine's iteration in the run's work tree.
func TestStepActivityRunsTheLocalSteps(t *testing.T) {
	dir := t.TempDir()
	planned := planIn(shAgent(t, "cat >/dev/null; echo changed > out.txt"))
	var asked []RunRef
	steps := &Steps{Log: testLogger(), Plan: func(ctx context.Context, r RunRef) (*plan.Plan, error) {
		asked = append(asked, r)
		return planned(ctx, r)
	}}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(steps.Step, activity.RegisterOptions{Name: ActivityStep})
	in := StepInput{
		Run:     RunRef{Name: "build", RunID: "r1", Procedure: "build", WorkDir: dir},
		Request: loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Attempt: 1, Timeout: time.Minute},
	}
	for n := 1; n <= 2; n++ {
		in.Request.Iteration = n
		v, err := env.ExecuteActivity(ActivityStep, in)
		if err != nil {
			t.Fatalf("iteration %d: %v", n, err)
		}
		var res state.StepResult
		if err := v.Get(&res); err != nil {
			t.Fatal(err)
		}
		if res.Iteration.Agent.ExitCode != 0 || res.Started.IsZero() || res.Finished.Before(res.Started) {
			t.Errorf("iteration %d: %+v", n, res)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out.txt")); err != nil || string(b) != "changed\n" {
		t.Errorf("the agent did not run in the work tree: %q, %v", b, err)
	}
	if len(asked) != 1 {
		t.Errorf("the plan was rebuilt %d times for two steps of one run, want once", len(asked))
	}
	if _, err := os.Stat(filepath.Join(dir, ".agentloop", "runs", "build", "r1", "iter-002", "prompt.md")); err != nil {
		t.Errorf("the iteration's files are not in the run folder: %v", err)
	}
}

// TestWorkerRunsAtMostMaxAgents: three steps of three runs come to a worker
// that runs at most two agents at once; the third waits until one of the
// first two ended, so that two agents, never three, ran side by side.
func TestWorkerRunsAtMostMaxAgents(t *testing.T) {
	const maxAgents, steps = 2, 3
	seen := t.TempDir() // each agent's marker while it runs, and what it saw
	a := shAgent(t, `cat >/dev/null; touch "$SEEN/run.$$"; sleep 0.5; ls "$SEEN" | grep -c '^run\.' >> "$SEEN/counts"; sleep 0.5; rm "$SEEN/run.$$"`)
	a.Env = map[string]string{"SEEN": seen}
	s := &Steps{Log: testLogger(), MaxAgents: maxAgents, Plan: planIn(a)}
	errs := make(chan error, steps)
	for i := range steps {
		go func() {
			var suite testsuite.WorkflowTestSuite
			env := suite.NewTestActivityEnvironment()
			env.RegisterActivityWithOptions(s.Step, activity.RegisterOptions{Name: ActivityStep})
			id := fmt.Sprint("r", i)
			_, err := env.ExecuteActivity(ActivityStep, StepInput{
				Run:     RunRef{Name: "build-" + id, RunID: id, Procedure: "build", WorkDir: t.TempDir()},
				Request: loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Attempt: 1, Timeout: time.Minute},
			})
			errs <- err
		}()
	}
	for range steps {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(seen, "counts"))
	if err != nil {
		t.Fatal(err)
	}
	counts := strings.Fields(string(b))
	if len(counts) != steps || slices.Max(counts) != fmt.Sprint(maxAgents) {
		t.Errorf("the agents running, as each saw them: %v; want %d counts, at most %d", counts, steps, maxAgents)
	}
}

// goStep runs the first iteration of run as a step activity of s, in a test
// environment of its own, and sends its error once it ends.
func goStep(s *Steps, run RunRef) chan error {
	done := make(chan error, 1)
	go func() {
		var suite testsuite.WorkflowTestSuite
		env := suite.NewTestActivityEnvironment()
		env.RegisterActivityWithOptions(s.Step, activity.RegisterOptions{Name: ActivityStep})
		_, err := env.ExecuteActivity(ActivityStep, StepInput{
			Run:     run,
			Request: loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Attempt: 1, Timeout: time.Minute},
		})
		done <- err
	}()
	return done
}

// shAgent is an agent that runs script with sh -c in the run's work tree,
// its prompt on its standard input.
func shAgent(t *testing.T, script string) agent.Preset {
	t.Helper()
	custom, err := agent.Lookup("custom")
	if err != nil {
		t.Fatal(err)
	}
	a := custom.Merge(agent.Override{Binary: "sh", Args: []string{"-c", script}})
	a.Name = "sh"
	return a
}

// planIn is a worker's plan of a run that runs agent a in the work tree the
// run names.
func planIn(a agent.Preset) func(context.Context, RunRef) (*plan.Plan, error) {
	return func(_ context.Context, r RunRef) (*plan.Plan, error) {
		return &plan.Plan{
			Name: r.Name, WorkDir: r.WorkDir, StateDir: filepath.Join(r.WorkDir, ".agentloop"),
			Proc: config.Procedure{Name: "build"}, Agent: a, KillGrace: time.Second,
		}, nil
	}
}
