package loop_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// renewEnv is a scriptEnv that ends its session every `every` iterations
// to go on in a new one.
type renewEnv struct {
	scriptEnv
	every   int
	renewed *loop.Carried // what the session this one goes on from carried
	from    int           // the iterations when this session started
	st      *state.State
}

func (e *renewEnv) Renewed() (loop.Carried, bool) {
	if e.renewed == nil {
		return loop.Carried{}, false
	}
	return *e.renewed, true
}
func (e *renewEnv) Renew() bool { return e.st.TotalIterations-e.from >= e.every }

// TestRenew: a run whose sessions end after each iteration to go on in new
// ones, each started with the state the last left, ends as a run in one
// session does: the same outcome, state, events and steps (no second
// run_started, no recovery or baseline again, no warning twice).
func TestRenew(t *testing.T) {
	t.Parallel()
	script := []func(int) (evidence.Iteration, error){gate(false, 3), gate(false, 2), gate(false, 1), gate(false, 1), gate(true, 0)}
	// The cost budget cannot be checked (the agent says no cost): told once.
	spec := state.Spec{Limits: budget.Limits{MaxIterations: 10, FailureThreshold: 5, MaxCostUSD: 5}, HasGates: true, Baseline: true, Decider: engine}

	once := &scriptEnv{script: script}
	st1 := newState()
	want, err := loop.Run(t.Context(), once, spec, st1)
	if err != nil {
		t.Fatal(err)
	}

	st2 := newState()
	env := &renewEnv{scriptEnv: scriptEnv{script: script}, every: 1, st: st2}
	var got loop.Outcome
	sessions := 0
	for {
		sessions++
		env.from = st2.TotalIterations
		got, err = loop.Run(t.Context(), env, spec, st2)
		re, ok := errors.AsType[*loop.RenewError](err)
		if !ok || !errors.Is(err, loop.ErrRenew) {
			break
		}
		if got.Status != state.StatusRunning || st2.Status != state.StatusRunning {
			t.Fatalf("renewed at %d iterations: outcome %+v, state %s; want running", st2.TotalIterations, got, st2.Status)
		}
		env.renewed = &re.Carried
	}
	if err != nil {
		t.Fatal(err)
	}
	if sessions != st1.TotalIterations || sessions < 3 {
		t.Errorf("%d sessions, want one an iteration (%d)", sessions, st1.TotalIterations)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcome (-in one session +renewed):\n%s", diff)
	}
	if diff := cmp.Diff(st1, st2); diff != "" {
		t.Errorf("state (-in one session +renewed):\n%s", diff)
	}
	if diff := cmp.Diff(once.events, env.events); diff != "" {
		t.Errorf("events (-in one session +renewed):\n%s", diff)
	}
	if diff := cmp.Diff(once.requests, env.requests); diff != "" {
		t.Errorf("steps (-in one session +renewed):\n%s", diff)
	}
}
