package loop_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// reserveEnv refuses the reservation of the iteration refuseAt (1-based)
// with a hard limit.
type reserveEnv struct {
	scriptEnv
	refuseAt int
	reserves int
}

func (e *reserveEnv) Step(ctx context.Context, r loop.StepRequest) (state.StepResult, error) {
	if r.Kind == loop.StepReserve {
		e.requests = append(e.requests, r)
		e.reserves++
		if e.reserves == e.refuseAt {
			return state.StepResult{}, &loop.StopError{Status: state.StatusAborted, Reason: "budget: cap day (all spend): $5.00 spent of the limit $5.00 today"}
		}
		return state.StepResult{Started: e.t0, Finished: e.t0.Add(time.Hour)}, nil // an hour parked: not the run's time
	}
	return e.scriptEnv.Step(ctx, r)
}

func TestSharedSpendIsReservedBeforeEachIteration(t *testing.T) {
	t.Parallel()
	paid := func(int) (evidence.Iteration, error) {
		return evidence.Iteration{Agent: evidence.AgentResult{ExitCode: 1, Usage: evidence.Usage{CostUSD: 0.5, CostKnown: true, InputTokens: 10, TokensKnown: true}}}, nil
	}
	env := &reserveEnv{scriptEnv: scriptEnv{script: []func(int) (evidence.Iteration, error){paid}}, refuseAt: 3}
	st := newState()
	spec := state.Spec{Name: "build", Limits: budget.Limits{MaxIterations: 10}, Decider: engine, Shared: true}
	out, err := loop.Run(t.Context(), env, spec, st)
	if err != nil || out.Status != state.StatusAborted || out.Reason != "budget: cap day (all spend): $5.00 spent of the limit $5.00 today" {
		t.Fatalf("Run = %+v, %v; want aborted by the cap", out, err)
	}
	var kinds []loop.StepKind
	for _, r := range env.requests {
		kinds = append(kinds, r.Kind)
	}
	want := []loop.StepKind{loop.StepReserve, loop.StepIteration, loop.StepReserve, loop.StepIteration, loop.StepReserve}
	if len(kinds) != len(want) {
		t.Fatalf("steps %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("steps %v, want %v", kinds, want)
		}
	}
	first, second, third := env.requests[0], env.requests[2], env.requests[4]
	if first.Seq != 1 || first.Reserve.CostKnown || second.Seq != 2 || second.Reserve.CostUSD != 0.6 || third.Seq != 3 {
		t.Errorf("reservations %+v / %+v / %+v: want attempt 1 with nothing known, attempt 2 of $0.60 (1.2 × $0.50), attempt 3", first, second, third)
	}
	if st.Attempts != 2 || st.Spend.Wall != 3000 {
		t.Errorf("after a refused reservation: %d attempts, wall %d ms; want 2 and 3000 (time parked is not the run's)", st.Attempts, st.Spend.Wall)
	}
	// Without Shared, no reservation is asked for.
	env2 := &reserveEnv{scriptEnv: scriptEnv{script: []func(int) (evidence.Iteration, error){paid}}, refuseAt: 1}
	spec.Limits.MaxIterations = 1
	spec.Shared = false
	if _, err := loop.Run(t.Context(), env2, spec, newState()); err != nil || env2.reserves != 0 {
		t.Errorf("not shared: %d reservations, %v", env2.reserves, err)
	}
}
