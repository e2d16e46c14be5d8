package temporal

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/ledger"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
)

// ledgerSteps is a fake step activity whose reservations get the answers of
// its script in turn; it records the requests and the holds it was given.
type ledgerSteps struct {
	answers []ReserveReply
	kinds   []loop.StepKind
	holds   []*Hold
}

func (s *ledgerSteps) step(_ context.Context, in StepInput) (StepOutput, error) {
	s.kinds = append(s.kinds, in.Request.Kind)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if in.Request.Kind == loop.StepReserve {
		a := s.answers[0]
		s.answers = s.answers[1:]
		return StepOutput{Reserved: &Reserved{Reply: a, Hold: Hold{ID: "r1#" + string(rune('0'+in.Request.Seq)), Key: budget.Key{Provider: "claude"}}}}, nil
	}
	s.holds = append(s.holds, in.Hold)
	return StepOutput{StepResult: state.StepResult{Started: t0, Finished: t0.Add(time.Second), Iteration: evidence.Iteration{Started: t0, Finished: t0.Add(time.Second)}}}, nil
}

// TestWorkflowReservesInTheLedger: a run with budgets: reserves before each
// iteration. Parked by a soft limit, it waits in its workflow (no step) with
// the approve command in its memo and events until the ledger workflow wakes
// it; granted, its iteration runs under the reservation; refused by a hard
// limit, it ends as a budget abort.
func TestWorkflowReservesInTheLedger(t *testing.T) {
	day := ledger.Cap{Name: "day", Period: ledger.Day, SoftCostUSD: 1, MaxCostUSD: 2}
	s := &ledgerSteps{answers: []ReserveReply{
		{Grant: ledger.Grant{Verdict: ledger.Parked, Cap: day, Period: "2026-01-02", Reason: "cap day (all spend): at its soft limit"}},
		{Grant: ledger.Grant{Verdict: ledger.Granted, LeftUSD: 0.7, LeftTokens: -1}},
		{Grant: ledger.Grant{Verdict: ledger.Refused, Cap: day, Period: "2026-01-02", Reason: "cap day (all spend): $2.00 spent of the limit $2.00 today"}},
	}}
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(tlog.NewStructuredLogger(testLogger()))
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: WorkflowRun})
	env.RegisterActivityWithOptions(s.step, activity.RegisterOptions{Name: ActivityStep})
	env.RegisterActivityWithOptions(noKeep, activity.RegisterOptions{Name: ActivityKeep})
	var parked View
	var stepsWhileParked int
	env.RegisterDelayedCallback(func() {
		parked = queryView(t, env)
		stepsWhileParked = len(s.kinds)
		env.SignalWorkflow(SignalBudget, "day")
	}, 2*time.Minute)
	in := input(budget.Limits{MaxIterations: 5, FailureThreshold: 3}, false)
	in.Shared, in.ServerFlags = true, "--temporal-address=h:7233"
	env.ExecuteWorkflow(WorkflowRun, in)
	out := result(t, env)
	if out.Status != state.StatusAborted || !strings.HasPrefix(out.Reason, "budget: cap day") {
		t.Errorf("the run ended %s (%s), want aborted by the budget", out.Status, out.Reason)
	}
	want := []loop.StepKind{loop.StepReserve, loop.StepReserve, loop.StepIteration, loop.StepReserve}
	if !slices.Equal(s.kinds, want) {
		t.Errorf("steps %v, want %v", s.kinds, want)
	}
	if stepsWhileParked != 1 {
		t.Errorf("%d steps by the time the parked run was woken, want 1: a parked run runs none", stepsWhileParked)
	}
	if len(s.holds) != 1 || s.holds[0] == nil || s.holds[0].ID != "r1#1" || s.holds[0].LeftUSD != 0.7 {
		t.Errorf("the iteration ran under %+v, want the reservation r1#1 with $0.70 left", s.holds)
	}
	var rec *decision.NeedsYou
	for _, ev := range parked.Events {
		if n, ok := ev.Data.(state.NeedsYou); ok {
			rec = &n.NeedsYou
		}
	}
	if rec == nil || rec.Kind != decision.NeedsBudget || rec.Options[0].Command != "agentloop budget approve day --engine temporal --temporal-address=h:7233" {
		t.Errorf("the parked run's record is %+v, want a budget one with the approve command for Temporal", rec)
	}
}

// TestWorkerWithCapsRefusesAnUnsharedRun: a worker whose configuration has
// budgets: caps refuses an iteration of a run that reserved nowhere (started
// from a configuration without them): the caps are never ignored.
func TestWorkerWithCapsRefusesAnUnsharedRun(t *testing.T) {
	dir := t.TempDir()
	custom, err := agent.Lookup("custom")
	if err != nil {
		t.Fatal(err)
	}
	a := custom.Merge(agent.Override{Binary: "sh", Args: []string{"-c", "cat >/dev/null; echo ran > ran.txt"}})
	steps := &Steps{Log: testLogger(), Plan: func(_ context.Context, r RunRef) (*plan.Plan, error) {
		return &plan.Plan{
			Name: r.Name, WorkDir: r.WorkDir, StateDir: filepath.Join(r.WorkDir, ".agentloop"),
			Proc: config.Procedure{Name: "build"}, Agent: a, KillGrace: time.Second,
			Budgets: config.Budgets{On: true, Given: true, Caps: []ledger.Cap{{Name: "day", Period: ledger.Day, MaxCostUSD: 5}}},
		}, nil
	}}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(steps.Step, activity.RegisterOptions{Name: ActivityStep})
	_, err = env.ExecuteActivity(ActivityStep, StepInput{
		Run:     RunRef{Name: "build", RunID: "r1", Procedure: "build", WorkDir: dir},
		Request: loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Seq: 1, Attempt: 1, Timeout: time.Minute},
	})
	if err == nil || !strings.Contains(err.Error(), "budgets: caps (day), which would be ignored") {
		t.Fatalf("the iteration was not refused with the reason: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "ran.txt")); len(m) != 0 {
		t.Error("the agent ran")
	}
}
