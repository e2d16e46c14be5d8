package loop_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decide"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// engine is the decision engine with its default policy: the loop obeys it.
var engine = decide.New(decide.DefaultPolicy())

// scriptEnv is an loop.Env whose iterations follow a script: one entry per call.
type scriptEnv struct {
	t0       time.Time
	script   []func(n int) (evidence.Iteration, error)
	calls    int
	saves    int
	saveErr  error
	failSave int // with saveErr: the first save that fails (1-based); 0: every one
	keepErr  error
	kept     []state.Artifacts
	events   []state.Event
	requests []loop.StepRequest
	cancel   func() // called at the start of the named call, if set
	cancelAt int
	// rollbackErr fails every rollback step; with cancelRollback the step
	// cancels the run's context first.
	rollbackErr    error
	cancelRollback func()
	// interrupted is reported by Recover, once.
	interrupted []state.Interrupted
	checkpoint  string        // each iteration's step reports it
	waited      time.Duration // each iteration's step waited this long on rate limits
	saved       []state.State // the state as each save wrote it
}

func (e *scriptEnv) Step(ctx context.Context, r loop.StepRequest) (state.StepResult, error) {
	e.requests = append(e.requests, r)
	if r.Kind == loop.StepRollback && e.rollbackErr != nil {
		if e.cancelRollback != nil {
			e.cancelRollback()
		}
		return state.StepResult{}, e.rollbackErr
	}
	if r.Kind != loop.StepIteration {
		return state.StepResult{Started: e.t0, Finished: e.t0}, nil
	}
	e.calls++
	if e.cancel != nil && e.calls == e.cancelAt {
		e.cancel()
		return state.StepResult{}, ctx.Err()
	}
	f := e.script[min(e.calls, len(e.script))-1]
	ev, err := f(r.Iteration)
	start := e.t0.Add(time.Duration(e.calls) * time.Minute)
	ev.Started, ev.Finished = start, start.Add(1500*time.Millisecond)
	res := state.StepResult{Started: ev.Started, Finished: ev.Finished, Iteration: ev, Checkpoint: e.checkpoint, Waited: e.waited}
	return res, err
}

func (e *scriptEnv) Recover(context.Context, int) ([]state.Interrupted, error) {
	cut := e.interrupted
	e.interrupted = nil
	return cut, nil
}

func (e *scriptEnv) AwaitGuidance(context.Context, state.Escalation) (state.Guidance, error) {
	return state.Guidance{}, loop.ErrSuspended
}

func (e *scriptEnv) Save(_ context.Context, st *state.State) error {
	c := *st
	c.History, c.Sessions = slices.Clone(st.History), slices.Clone(st.Sessions)
	e.saved = append(e.saved, c)
	e.saves++
	if e.saves < e.failSave {
		return nil
	}
	return e.saveErr
}
func (e *scriptEnv) Keep(_ context.Context, a state.Artifacts) error {
	e.kept = append(e.kept, a)
	return e.keepErr
}
func (e *scriptEnv) Emit(_ context.Context, ev state.Event) error {
	e.events = append(e.events, ev)
	return nil
}

func agentExit(code int) func(int) (evidence.Iteration, error) {
	return func(int) (evidence.Iteration, error) {
		return evidence.Iteration{Agent: evidence.AgentResult{ExitCode: code}}, nil
	}
}

func gate(passed bool, failures int) func(int) (evidence.Iteration, error) {
	return func(int) (evidence.Iteration, error) {
		g := evidence.GateResult{Name: "tests", Required: true, Passed: passed}
		for i := range failures {
			g.Findings = append(g.Findings, evidence.Finding{Kind: evidence.KindTest, Key: fmt.Sprintf("test:T%d", i)})
		}
		return evidence.Iteration{Gates: []evidence.GateResult{g}}, nil
	}
}

func newState() *state.State {
	return &state.State{Version: state.StateVersion, Name: "build", Status: state.StatusRunning, Sessions: []state.Session{{}}}
}

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		spec       state.Spec
		script     []func(int) (evidence.Iteration, error)
		wantStatus state.Status
		wantReason string
		wantIters  int
		wantFails  int
	}{
		{
			name:       "plain loop runs to max iterations",
			spec:       state.Spec{Limits: budget.Limits{MaxIterations: 3, FailureThreshold: 3}, Decider: engine},
			script:     []func(int) (evidence.Iteration, error){agentExit(0)},
			wantStatus: state.StatusCompleted, wantReason: "max iterations reached (3)", wantIters: 3,
		},
		{
			name:       "failure threshold aborts",
			spec:       state.Spec{Limits: budget.Limits{MaxIterations: 10, FailureThreshold: 3}, Decider: engine},
			script:     []func(int) (evidence.Iteration, error){agentExit(1)},
			wantStatus: state.StatusAborted, wantReason: "agent failed: exit 1; consecutive failures: 3/3", wantIters: 3, wantFails: 3,
		},
		{
			name:       "a success resets the failure count",
			spec:       state.Spec{Limits: budget.Limits{MaxIterations: 5, FailureThreshold: 3}, Decider: engine},
			script:     []func(int) (evidence.Iteration, error){agentExit(1), agentExit(1), agentExit(0), agentExit(1), agentExit(1)},
			wantStatus: state.StatusCompleted, wantIters: 5, wantFails: 2, wantReason: "max iterations reached (5)",
		},
		{
			name:       "gates green succeed",
			spec:       state.Spec{Limits: budget.Limits{MaxIterations: 5, FailureThreshold: 3}, HasGates: true, Decider: engine},
			script:     []func(int) (evidence.Iteration, error){gate(false, 2), gate(false, 1), gate(true, 0)},
			wantStatus: state.StatusSucceeded, wantIters: 3, wantReason: "all required gates passed",
		},
		{
			name:       "gates still failing at the limit escalate",
			spec:       state.Spec{Limits: budget.Limits{MaxIterations: 2, FailureThreshold: 5}, HasGates: true, Decider: engine},
			script:     []func(int) (evidence.Iteration, error){gate(false, 2)},
			wantStatus: state.StatusEscalated, wantIters: 2, wantFails: 2, wantReason: "max iterations reached: iteration 2 of 2 with 2 failures left",
		},
		{
			name:       "fewer failures count as progress",
			spec:       state.Spec{Limits: budget.Limits{MaxIterations: 9, FailureThreshold: 2}, HasGates: true, Decider: engine},
			script:     []func(int) (evidence.Iteration, error){gate(false, 4), gate(false, 3), gate(false, 2), gate(false, 1), gate(true, 0)},
			wantStatus: state.StatusSucceeded, wantIters: 5, wantReason: "all required gates passed",
		},
		{
			name: "the completion marker ends a plain loop",
			spec: state.Spec{Limits: budget.Limits{MaxIterations: 5, FailureThreshold: 3}, Decider: engine},
			script: []func(int) (evidence.Iteration, error){agentExit(0), func(int) (evidence.Iteration, error) {
				return evidence.Iteration{Agent: evidence.AgentResult{Completed: true}}, nil
			}},
			wantStatus: state.StatusCompleted, wantIters: 2, wantReason: "the agent printed the completion marker",
		},
		{
			name: "environment stop",
			spec: state.Spec{Limits: budget.Limits{MaxIterations: 5}, Decider: engine},
			script: []func(int) (evidence.Iteration, error){func(int) (evidence.Iteration, error) {
				return evidence.Iteration{}, &loop.StopError{Status: state.StatusAborted, Reason: "rate limited for 2h"}
			}},
			wantStatus: state.StatusAborted, wantReason: "rate limited for 2h",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := &scriptEnv{script: tt.script}
			st := newState()
			out, err := loop.Run(t.Context(), env, tt.spec, st)
			if err != nil {
				t.Fatalf("loop.Run: %v", err)
			}
			if out.Status != tt.wantStatus || out.Reason != tt.wantReason {
				t.Errorf("outcome = %s %q, want %s %q", out.Status, out.Reason, tt.wantStatus, tt.wantReason)
			}
			if st.Status != tt.wantStatus || st.Iteration != tt.wantIters || st.ConsecutiveFailures != tt.wantFails {
				t.Errorf("state = %s iter %d fails %d, want %s iter %d fails %d", st.Status, st.Iteration, st.ConsecutiveFailures, tt.wantStatus, tt.wantIters, tt.wantFails)
			}
			if len(st.History) != tt.wantIters || st.Attempts != len(st.History)+len(st.Interrupted) {
				t.Errorf("history %d, attempts %d, cut %d: want %d records, every attempt recorded once", len(st.History), st.Attempts, len(st.Interrupted), tt.wantIters)
			}
			for i, h := range st.History {
				if h.Seq != i+1 || h.Segment != 1 {
					t.Errorf("record %d: seq %d segment %d, want seq %d segment 1", i, h.Seq, h.Segment, i+1)
				}
			}
			if s := st.Sessions[0]; s.Iterations != tt.wantIters || s.Status != tt.wantStatus || s.Reason != tt.wantReason {
				t.Errorf("session = %+v, want %d iterations, %s %q", s, tt.wantIters, tt.wantStatus, tt.wantReason)
			}
			if env.saves < tt.wantIters+1 {
				t.Errorf("saved %d times, want at least %d", env.saves, tt.wantIters+1)
			}
			if last := env.events[len(env.events)-1]; last.Type() != state.EventRunFinished {
				t.Errorf("last event %q, want run_finished", last.Type())
			}
		})
	}
}

func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	env := &scriptEnv{script: []func(int) (evidence.Iteration, error){agentExit(0)}, cancel: cancel, cancelAt: 3}
	st := newState()
	out, err := loop.Run(ctx, env, state.Spec{Limits: budget.Limits{MaxIterations: 0, FailureThreshold: 3}, Decider: engine}, st)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != state.StatusInterrupted || st.Iteration != 2 {
		t.Fatalf("got %s after %d iterations, want interrupted after 2", out.Status, st.Iteration)
	}
	// Resuming continues from the next iteration with the counters kept.
	env2 := &scriptEnv{script: []func(int) (evidence.Iteration, error){agentExit(0)}}
	if _, err := loop.Run(t.Context(), env2, state.Spec{Limits: budget.Limits{MaxIterations: 4, FailureThreshold: 3}, Decider: engine}, st); err != nil {
		t.Fatal(err)
	}
	if got := env2.requests[0].Iteration; got != 3 {
		t.Errorf("resumed at iteration %d, want 3", got)
	}
	for i, e := range []*scriptEnv{env, env2} {
		if rs, ok := e.events[0].Data.(state.RunStarted); !ok || rs.Resumed != (i == 1) {
			t.Errorf("session %d: first event %+v, want run_started with resumed %v", i+1, e.events[0].Data, i == 1)
		}
	}
	if st.Status != state.StatusCompleted || st.TotalIterations != 4 {
		t.Errorf("after resume: %s, %d iterations", st.Status, st.TotalIterations)
	}
}

// A state that cannot be saved stops the run at once: the iteration whose
// record is lost is not announced as finished (resume runs it again, and only
// then is it reported), and nothing more runs.
func TestRunStopsWhenTheStateCannotBeSaved(t *testing.T) {
	t.Parallel()
	full := errors.New("no space left on device")
	// Save 1 is the run's start, save 2 iteration 1's record, save 3 iteration 2's.
	env := &scriptEnv{script: []func(int) (evidence.Iteration, error){agentExit(0)}, saveErr: full, failSave: 3}
	st := newState()
	out, err := loop.Run(t.Context(), env, state.Spec{Limits: budget.Limits{MaxIterations: 5}, Decider: engine}, st)
	var se *loop.SaveError
	if !errors.As(err, &se) || !errors.Is(err, full) || !strings.Contains(err.Error(), "agentloop resume") {
		t.Fatalf("Run error = %v, want a *SaveError wrapping the cause and saying how to continue", err)
	}
	if out.Status != state.StatusInterrupted {
		t.Errorf("status %s, want interrupted", out.Status)
	}
	if env.saves != 3 {
		t.Errorf("saves = %d, want 3: nothing is tried after the failed one", env.saves)
	}
	finished, warned := 0, false
	for _, ev := range env.events {
		switch ev.Type() {
		case state.EventIterationFinished:
			finished++
		case state.EventWarning:
			warned = true
		case state.EventRunFinished:
			t.Error("a run whose state was not saved announced its end")
		}
	}
	if finished != 1 || !warned {
		t.Errorf("iteration finished events = %d (want 1, the saved one), warned = %v", finished, warned)
	}
}

func TestRunBudget(t *testing.T) {
	t.Parallel()
	costly := func(int) (evidence.Iteration, error) {
		return evidence.Iteration{Agent: evidence.AgentResult{Usage: evidence.Usage{CostUSD: 1, CostKnown: true}}}, nil
	}
	env := &scriptEnv{script: []func(int) (evidence.Iteration, error){costly}}
	st := newState()
	out, _ := loop.Run(t.Context(), env, state.Spec{Limits: budget.Limits{MaxCostUSD: 3.5, FailureThreshold: 3}, Decider: engine}, st)
	// After 3 iterations $0.50 is left and an iteration costs $1: don't start a fourth.
	if out.Status != state.StatusAborted || st.Iteration != 3 {
		t.Fatalf("got %s after %d, want aborted after 3 (%s)", out.Status, st.Iteration, out.Reason)
	}
	if want := "budget: cost: $0.50 left of $3.50, an iteration takes about $1.20 (mean of 3 × 1.2)"; out.Reason != want {
		t.Errorf("reason %q, want %q", out.Reason, want)
	}
	// The state records which of the run's limits stopped it (the inbox
	// offers to raise them), until the run goes on.
	if !slices.Equal(st.StoppedBy, []budget.Resource{budget.CostUSD}) {
		t.Errorf("stopped by %v, want the cost budget", st.StoppedBy)
	}
	out, _ = loop.Run(t.Context(), env, state.Spec{Limits: budget.Limits{MaxCostUSD: 3.5, MaxIterations: 3, FailureThreshold: 3}, Decider: engine}, st)
	if out.Status != state.StatusCompleted || st.StoppedBy != nil {
		t.Errorf("resumed to its iteration limit: %s (%s), stopped by %v", out.Status, out.Reason, st.StoppedBy)
	}
	// Each iteration is given what the run has left, for the agent's live watch.
	for i, want := range []float64{3.5, 2.5, 1.5} {
		if got := env.requests[i].Remaining; got.CostUSD != want || got.Tokens != -1 {
			t.Errorf("iteration %d was given %+v, want $%.2f left and no token limit", i+1, got, want)
		}
	}
}

// TestRunBudgetWarningNamesItsLimits: the 80% warning names the limits past
// their mark, once, for a notification to tell.
func TestRunBudgetWarningNamesItsLimits(t *testing.T) {
	t.Parallel()
	costly := func(int) (evidence.Iteration, error) {
		return evidence.Iteration{Agent: evidence.AgentResult{Usage: evidence.Usage{CostUSD: 1, CostKnown: true}}}, nil
	}
	env := &scriptEnv{script: []func(int) (evidence.Iteration, error){costly}}
	out, _ := loop.Run(t.Context(), env, state.Spec{Limits: budget.Limits{MaxCostUSD: 10, MaxIterations: 9}, Decider: engine}, newState())
	if out.Status != state.StatusCompleted {
		t.Fatalf("got %s (%s), want completed at the iteration limit", out.Status, out.Reason)
	}
	var soft [][]budget.Resource
	for _, ev := range events(env, state.EventWarning) {
		if w := ev.Data.(state.Warning); len(w.Budget) > 0 {
			soft = append(soft, w.Budget)
		}
	}
	if len(soft) != 1 || !slices.Equal(soft[0], []budget.Resource{budget.CostUSD}) {
		t.Errorf("budget warnings name %v, want one naming the cost", soft)
	}
}

func TestRunNeedsADecider(t *testing.T) {
	t.Parallel()
	if _, err := loop.Run(t.Context(), &scriptEnv{}, state.Spec{}, newState()); err == nil {
		t.Error("Run without a decider: no error")
	}
}

// documenter is a decider that writes a decision document and feedback naming the
// iteration it judged; before an iteration it asks the engine.
type documenter struct{}

func (documenter) Preflight(in state.PreflightInput) state.Preflight { return engine.Preflight(in) }

// Brief implements [state.Decider]: it names the baseline's gates.
func (documenter) Brief(baseline []evidence.GateResult) string {
	return fmt.Sprintf("the baseline ran %d gates", len(baseline))
}

func (documenter) Decide(in state.DecideInput) state.Decision {
	n := in.Evidence.N
	return state.Decision{
		Action: state.ActionRefine, Feedback: fmt.Sprintf("feedback of %d", n),
		Document: &decision.Document{Decision: decision.Body{Action: "retry", Iteration: n}},
	}
}

// TestRunKeepsArtifacts: the decision document and the feedback of iteration n
// are kept through Env.Keep as iteration n's, and a failure to keep them is a
// warning, not the end of the run.
func TestRunKeepsArtifacts(t *testing.T) {
	t.Parallel()
	env := &scriptEnv{script: []func(int) (evidence.Iteration, error){agentExit(0)}, keepErr: errors.New("disk full")}
	st := newState()
	out, err := loop.Run(t.Context(), env, state.Spec{Limits: budget.Limits{MaxIterations: 2}, Decider: documenter{}}, st)
	if err != nil || out.Status != state.StatusCompleted {
		t.Fatalf("Run = %+v, %v; want completed at the iteration limit", out, err)
	}
	if len(env.kept) != 2 {
		t.Fatalf("kept %d times, want 2: %+v", len(env.kept), env.kept)
	}
	for i, a := range env.kept {
		n := i + 1
		if a.Iteration != n || a.Decision == nil || a.Decision.Decision.Iteration != n || a.Feedback != fmt.Sprintf("feedback of %d", n) {
			t.Errorf("artifacts %d = %+v, want iteration %d's", i, a, n)
		}
	}
	warnings := 0
	for _, ev := range env.events {
		if ev.Type() == state.EventWarning {
			warnings++
		}
	}
	if warnings != 2 {
		t.Errorf("%d warnings, want one per artifact not kept", warnings)
	}
}

// TestBriefIsTheFirstPromptsFeedback: after the baseline, the decider's brief is
// the feedback the first iteration is given; later ones get the decision's.
func TestBriefIsTheFirstPromptsFeedback(t *testing.T) {
	t.Parallel()
	env := &scriptEnv{script: []func(int) (evidence.Iteration, error){agentExit(0)}}
	spec := state.Spec{Limits: budget.Limits{MaxIterations: 2}, HasGates: true, Baseline: true, Decider: documenter{}}
	if _, err := loop.Run(t.Context(), env, spec, newState()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range env.requests {
		if r.Kind == loop.StepIteration {
			got = append(got, r.Feedback)
		}
	}
	if want := []string{"the baseline ran 0 gates", "feedback of 1"}; !slices.Equal(got, want) {
		t.Errorf("feedback per iteration %q, want %q", got, want)
	}
}

// rollbacker is a decider that asks, after every iteration, for the given
// action and a rollback to checkpoint "cp-1".
type rollbacker struct{ action state.Action }

func (rollbacker) Preflight(in state.PreflightInput) state.Preflight { return engine.Preflight(in) }
func (rollbacker) Brief([]evidence.GateResult) string                { return "" }
func (d rollbacker) Decide(state.DecideInput) state.Decision {
	return state.Decision{Action: d.action, Rollback: "cp-1", Message: "judged"}
}

func rollbacks(env *scriptEnv) []loop.StepRequest {
	var out []loop.StepRequest
	for _, r := range env.requests {
		if r.Kind == loop.StepRollback {
			out = append(out, r)
		}
	}
	return out
}

func events(env *scriptEnv, t state.EventType) []state.Event {
	var out []state.Event
	for _, ev := range env.events {
		if ev.Type() == t {
			out = append(out, ev)
		}
	}
	return out
}

// A decision's rollback is carried out whether the loop goes on or ends worse
// than its best checkpoint (abort, escalate); a successful end keeps its tree.
// A rollback that fails is a warning; one cut short by an interrupt ends the
// session as interrupted.
func TestRunRollsBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		action        state.Action
		rollbackErr   error
		cancel        bool
		wantStatus    state.Status
		wantRollbacks int
		wantWarning   string
	}{
		{name: "abort rolls back", action: state.ActionAbort, wantStatus: state.StatusAborted, wantRollbacks: 1},
		{name: "refine rolls back each time", action: state.ActionRefine, wantStatus: state.StatusCompleted, wantRollbacks: 2},
		{name: "proceed keeps the tree", action: state.ActionProceed, wantStatus: state.StatusSucceeded},
		{name: "a failed rollback is a warning", action: state.ActionAbort, rollbackErr: errors.New("no such ref"),
			wantStatus: state.StatusAborted, wantRollbacks: 1, wantWarning: "roll back to cp-1: no such ref"},
		{name: "an interrupted rollback ends the session", action: state.ActionAbort, rollbackErr: context.Canceled, cancel: true,
			wantStatus: state.StatusInterrupted, wantRollbacks: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			env := &scriptEnv{script: []func(int) (evidence.Iteration, error){agentExit(0)}, rollbackErr: tc.rollbackErr}
			if tc.cancel {
				env.cancelRollback = cancel
			}
			out, err := loop.Run(ctx, env, state.Spec{Limits: budget.Limits{MaxIterations: 2}, Decider: rollbacker{tc.action}}, newState())
			if err != nil || out.Status != tc.wantStatus {
				t.Fatalf("Run = %+v, %v; want %s", out, err, tc.wantStatus)
			}
			rb := rollbacks(env)
			if len(rb) != tc.wantRollbacks {
				t.Fatalf("%d rollbacks, want %d", len(rb), tc.wantRollbacks)
			}
			for i, r := range rb {
				if r.Checkpoint != "cp-1" || r.Iteration != i+1 {
					t.Errorf("rollback %d = %+v, want to cp-1 after iteration %d", i, r, i+1)
				}
			}
			if len(env.kept) != 0 {
				t.Errorf("kept %+v for decisions with no document and no feedback", env.kept)
			}
			if got := len(events(env, state.EventRollback)); got != tc.wantRollbacks {
				t.Errorf("%d rollback events, want %d", got, tc.wantRollbacks)
			}
			var warnings []string
			for _, ev := range events(env, state.EventWarning) {
				warnings = append(warnings, ev.Data.(state.Warning).Message)
			}
			if tc.wantWarning != "" && !slices.Contains(warnings, tc.wantWarning) || tc.wantWarning == "" && len(warnings) > 0 {
				t.Errorf("warnings %q, want %q", warnings, tc.wantWarning)
			}
		})
	}
}

// Iterations an earlier session's crash cut short count against the budgets:
// their time always, their tokens and cost when their transcript tells them,
// and a warning says which.
func TestRunCountsInterruptedIterations(t *testing.T) {
	t.Parallel()
	cut := []state.Interrupted{
		{Seq: 3, Iteration: 3, Duration: 61_240, Usage: evidence.Usage{InputTokens: 100, OutputTokens: 20, TokensKnown: true}},
		{Seq: 4, Iteration: 4, Duration: 2_000},
		{Seq: 5, Iteration: 5, Duration: 10, Usage: evidence.Usage{CostUSD: 0.5, CostKnown: true}, Reviewer: evidence.Usage{CostUSD: 0.03, CostKnown: true}},
	}
	env := &scriptEnv{script: []func(int) (evidence.Iteration, error){agentExit(0)}, interrupted: cut}
	st := newState()
	if _, err := loop.Run(t.Context(), env, state.Spec{Limits: budget.Limits{MaxIterations: 1}, Decider: engine}, st); err != nil {
		t.Fatal(err)
	}
	if len(st.Interrupted) != 3 || st.Interrupted[0].Iteration != 3 || st.Interrupted[2].Iteration != 5 {
		t.Errorf("interrupted = %+v, want all three recorded", st.Interrupted)
	}
	// The attempts go on after the last cut one.
	if st.Attempts != 6 || len(st.History) != 1 || st.History[0].Seq != 6 {
		t.Errorf("attempts %d, history %+v: want the new attempt numbered 6", st.Attempts, st.History)
	}
	// 61.24 s + 2 s + 10 ms cut short, 1.5 s of the iteration run now.
	if st.Spend.Wall != 61_240+2_000+10+1_500 {
		t.Errorf("wall = %d ms, want 64750", st.Spend.Wall)
	}
	if u := st.Spend.Usage; u.TotalTokens() != 120 || u.CostUSD != 0.5 {
		t.Errorf("usage = %+v, want the cut-short iterations' 120 tokens and $0.50", u)
	}
	// Attempt 5 was cut after its review: the reviewer's $0.03 is spent too.
	if r := st.Spend.Reviewer; r.CostUSD != 0.03 || st.Spend.Total().CostUSD != 0.53 {
		t.Errorf("reviewer = %+v, total %+v: want the cut attempt's review, $0.03, in the total", r, st.Spend.Total())
	}
	var warnings []string
	for _, ev := range events(env, state.EventWarning) {
		warnings = append(warnings, ev.Data.(state.Warning).Message)
	}
	if len(warnings) != 3 ||
		!strings.Contains(warnings[0], "attempt 3 (iteration 3) of an earlier session was cut short (a crash or a kill) after its agent ran 1m1.2s") ||
		!strings.HasSuffix(warnings[0], "so do the tokens and cost its transcript tells") ||
		!strings.Contains(warnings[1], "iteration 4)") || !strings.Contains(warnings[1], "ran 2s") ||
		!strings.HasSuffix(warnings[1], "its tokens and cost are unknown (the agent's transcript does not tell them)") ||
		!strings.HasSuffix(warnings[2], "so do the tokens and cost its transcript tells") {
		t.Errorf("warnings:\n%s", strings.Join(warnings, "\n"))
	}
}

// A step that fails ends the session, as what its failure says: the overall
// timeout aborts, an interrupt says its cause, a stop asked for by the
// environment hands its error on once saved, anything else aborts with it.
func TestRunStepFailures(t *testing.T) {
	t.Parallel()
	infra := errors.New("worktree vanished")
	fixIt := errors.New("log in to the agent")
	tests := []struct {
		name       string
		ctx        func(context.Context) (context.Context, func())
		stepErr    error // returned by the first iteration's step; nil: the context's error
		wantStatus state.Status
		wantReason string
		wantErr    error
	}{
		{name: "overall timeout", ctx: func(ctx context.Context) (context.Context, func()) {
			return context.WithDeadline(ctx, time.Now().Add(-time.Second))
		}, wantStatus: state.StatusAborted, wantReason: "overall timeout reached"},
		{name: "interrupt with a cause", ctx: func(ctx context.Context) (context.Context, func()) {
			ctx, cancel := context.WithCancelCause(ctx)
			cancel(errors.New("terminated by SIGTERM"))
			return ctx, func() {}
		}, wantStatus: state.StatusInterrupted, wantReason: "terminated by SIGTERM"},
		{name: "interrupt", ctx: func(ctx context.Context) (context.Context, func()) {
			ctx, cancel := context.WithCancel(ctx)
			cancel()
			return ctx, func() {}
		}, wantStatus: state.StatusInterrupted, wantReason: "interrupted"},
		{name: "an infrastructure failure", stepErr: infra, wantStatus: state.StatusAborted, wantReason: "worktree vanished", wantErr: infra},
		{name: "a stop with an error to act on", stepErr: &loop.StopError{Status: state.StatusAborted, Reason: "not logged in", Err: fixIt},
			wantStatus: state.StatusAborted, wantReason: "not logged in", wantErr: fixIt},
		{name: "the overall timeout, whatever the step says", ctx: func(ctx context.Context) (context.Context, func()) {
			return context.WithDeadline(ctx, time.Now().Add(-time.Second))
		}, stepErr: errors.New("signal: killed"), wantStatus: state.StatusAborted, wantReason: "overall timeout reached"},
		{name: "a step's own deadline is not the run's", stepErr: context.DeadlineExceeded,
			wantStatus: state.StatusAborted, wantReason: "context deadline exceeded", wantErr: context.DeadlineExceeded},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			if tc.ctx != nil {
				var done func()
				ctx, done = tc.ctx(ctx)
				defer done()
			}
			fail := func(int) (evidence.Iteration, error) { return evidence.Iteration{}, tc.stepErr }
			if tc.stepErr == nil {
				fail = func(int) (evidence.Iteration, error) { return evidence.Iteration{}, ctx.Err() }
			}
			env := &scriptEnv{script: []func(int) (evidence.Iteration, error){fail}}
			st := newState()
			out, err := loop.Run(ctx, env, state.Spec{Limits: budget.Limits{MaxIterations: 3}, Decider: engine}, st)
			if out.Status != tc.wantStatus || out.Reason != tc.wantReason {
				t.Errorf("Run = %+v, want %s: %q", out, tc.wantStatus, tc.wantReason)
			}
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("Run error = %v, want %v", err, tc.wantErr)
			}
			if st.Status != tc.wantStatus || st.Sessions[0].Status != tc.wantStatus || st.Sessions[0].Reason != tc.wantReason {
				t.Errorf("saved state %s, session %+v", st.Status, st.Sessions[0])
			}
			if env.calls != 1 {
				t.Errorf("%d iterations ran, want 1", env.calls)
			}
		})
	}
}

// warner is the engine with its preflight's budget warnings replaced: warn[i]
// before iteration i+1.
type warner struct{ warn [][]budget.Resource }

func (w warner) Preflight(in state.PreflightInput) state.Preflight {
	p := engine.Preflight(in)
	if i := in.State.Iteration; i < len(w.warn) {
		p.Warn, p.Warning = w.warn[i], fmt.Sprintf("warning before iteration %d", i+1)
	}
	return p
}
func (warner) Brief(b []evidence.GateResult) string       { return engine.Brief(b) }
func (warner) Decide(in state.DecideInput) state.Decision { return engine.Decide(in) }

// A budget warning is shown when the set of limits past their mark changes,
// not before each iteration, and not when the set empties.
func TestRunWarnsWhenTheBudgetPictureChanges(t *testing.T) {
	t.Parallel()
	cost, tokens := budget.CostUSD, budget.Tokens
	d := warner{warn: [][]budget.Resource{nil, {cost}, {cost}, {cost, tokens}, nil, {cost}}}
	env := &scriptEnv{script: []func(int) (evidence.Iteration, error){agentExit(0)}}
	if _, err := loop.Run(t.Context(), env, state.Spec{Limits: budget.Limits{MaxIterations: 6}, Decider: d}, newState()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range events(env, state.EventWarning) {
		got = append(got, ev.Data.(state.Warning).Message)
	}
	want := []string{"warning before iteration 2", "warning before iteration 4", "warning before iteration 6"}
	if !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
}

// What a run spent, for the decider: every session's totals, and the
// iteration just finished when there is one.
func TestBudgetStatus(t *testing.T) {
	t.Parallel()
	st := newState()
	st.Iteration = 2
	st.Spend.Wall = 10_000
	st.Spend.Usage = evidence.Usage{InputTokens: 300, TokensKnown: true, CostUSD: 3, CostKnown: true}
	st.History = []state.Record{
		{N: 1, Duration: 4_000, Usage: evidence.Usage{InputTokens: 100, TokensKnown: true, CostUSD: 1, CostKnown: true}},
		{N: 2, Duration: 6_000, Usage: evidence.Usage{InputTokens: 200, TokensKnown: true, CostUSD: 2, CostKnown: true}},
	}
	s := state.BudgetStatus(st, nil)
	if s.Spent.Duration != 10*time.Second || s.Spent.Tokens != 300 || s.Spent.CostUSD != 3 || s.Spent.Iterations != 2 || len(s.PerIteration) != 2 {
		t.Errorf("before the iteration: %+v", s)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ev := evidence.Iteration{N: 3, Started: t0, Finished: t0.Add(2 * time.Second),
		Agent: evidence.AgentResult{Usage: evidence.Usage{InputTokens: 50, TokensKnown: true, CostUSD: 0.5, CostKnown: true}}}
	s = state.BudgetStatus(st, &ev)
	if s.Spent.Duration != 12*time.Second || s.Spent.Tokens != 350 || s.Spent.CostUSD != 3.5 || s.Spent.Iterations != 3 || len(s.PerIteration) != 3 ||
		s.PerIteration[2].Duration != 2*time.Second || s.PerIteration[0].Duration != 4*time.Second {
		t.Errorf("with iteration 3: %+v", s)
	}
}

// A state without sessions (written by an older build) still runs.
func TestRunWithoutSessions(t *testing.T) {
	t.Parallel()
	st := newState()
	st.Sessions = nil
	env := &scriptEnv{script: []func(int) (evidence.Iteration, error){agentExit(0)}}
	out, err := loop.Run(t.Context(), env, state.Spec{Limits: budget.Limits{MaxIterations: 2}, Decider: engine}, st)
	if err != nil || out.Status != state.StatusCompleted || st.TotalIterations != 2 || len(st.Sessions) != 0 {
		t.Errorf("Run = %+v, %v; %d iterations, sessions %+v", out, err, st.TotalIterations, st.Sessions)
	}
}

// bester is the engine, with the iteration it judges made the best checkpoint.
type bester struct{}

func (bester) Preflight(in state.PreflightInput) state.Preflight { return engine.Preflight(in) }
func (bester) Brief(b []evidence.GateResult) string              { return engine.Brief(b) }
func (bester) Decide(in state.DecideInput) state.Decision {
	d := engine.Decide(in)
	d.Best = &state.Checkpoint{Iteration: in.Evidence.N, Quality: 0.5}
	return d
}

// An iteration's record keeps what reports and the decider read of it: the
// diff's size, each gate's failure keys (the agent's and the baseline's,
// sorted), the review, the checkpoint; the state's spend adds the reviewer's
// usage and the rate-limit waits.
func TestRunRecordsTheIteration(t *testing.T) {
	t.Parallel()
	it := func(int) (evidence.Iteration, error) {
		return evidence.Iteration{
			Diff: evidence.DiffFacts{Hash: "d1", TreeHash: "t1", Added: 5, Deleted: 3},
			Gates: []evidence.GateResult{{Name: "tests", Required: true, ExitCode: 1,
				Findings:    []evidence.Finding{{Kind: evidence.KindTest, Key: "test:b"}, {Kind: evidence.KindTest, Key: "test:a"}, {Kind: evidence.KindTest}},
				Preexisting: []evidence.Finding{{Kind: evidence.KindTest, Key: "test:0"}}}},
			Review: &evidence.Review{Verdict: "request_changes", Score: 4, Usage: evidence.Usage{InputTokens: 70, TokensKnown: true}},
		}, nil
	}
	env := &scriptEnv{script: []func(int) (evidence.Iteration, error){it}, checkpoint: "cp-7", waited: 3 * time.Second}
	st := newState()
	if _, err := loop.Run(t.Context(), env, state.Spec{Limits: budget.Limits{MaxIterations: 1}, HasGates: true, Decider: bester{}}, st); err != nil {
		t.Fatal(err)
	}
	rec := st.History[0]
	if rec.N != 1 || rec.DiffLines != 8 || rec.DiffHash != "d1" || rec.TreeHash != "t1" || rec.Checkpoint != "cp-7" ||
		rec.Review != "request_changes" || rec.ReviewScore != 4 || rec.Duration != 1500 {
		t.Errorf("record = %+v", rec)
	}
	if len(rec.Gates) != 1 || rec.Gates[0].Failures != 3 || rec.Gates[0].ExitCode != 1 || !rec.Gates[0].Required ||
		!slices.Equal(rec.Gates[0].Keys, []string{"test:0", "test:a", "test:b"}) {
		t.Errorf("gates = %+v", rec.Gates)
	}
	if st.Spend.Reviewer.InputTokens != 70 || st.Spend.Waited != 3000 || st.Spend.Wall != 1500 {
		t.Errorf("spend = %+v", st.Spend)
	}
	if st.Best == nil || st.Best.Ref != "cp-7" || st.Best.Iteration != 1 {
		t.Errorf("best = %+v, want iteration 1 at the step's checkpoint", st.Best)
	}
}

// The baseline gates run once, before the first iteration, when the run has
// gates and asks for a baseline.
func TestRunBaselineOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		baseline, hasGates, done bool
		want                     int
	}{
		{baseline: true, hasGates: true, want: 1},
		{baseline: true, hasGates: true, done: true},
		{baseline: false, hasGates: true},
		{baseline: true, hasGates: false},
	} {
		env := &scriptEnv{script: []func(int) (evidence.Iteration, error){agentExit(0)}}
		st := newState()
		st.BaselineDone = tc.done
		spec := state.Spec{Limits: budget.Limits{MaxIterations: 1}, Baseline: tc.baseline, HasGates: tc.hasGates, Decider: engine}
		if _, err := loop.Run(t.Context(), env, spec, st); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range env.requests {
			if r.Kind == loop.StepBaseline {
				n++
			}
		}
		if n != tc.want || len(events(env, state.EventBaselineStarted)) != tc.want {
			t.Errorf("%+v: %d baseline steps, want %d", tc, n, tc.want)
		}
	}
}

// A stop whose state cannot be saved reports the save's failure, not the
// stop's error: the run must be resumed from the state on disk.
func TestRunStopUnsaved(t *testing.T) {
	t.Parallel()
	full := errors.New("no space left on device")
	stop := func(int) (evidence.Iteration, error) {
		return evidence.Iteration{}, &loop.StopError{Status: state.StatusAborted, Reason: "not logged in", Err: errors.New("log in")}
	}
	// Save 1 is the run's start, save 2 the end the stop asks for.
	env := &scriptEnv{script: []func(int) (evidence.Iteration, error){stop}, saveErr: full, failSave: 2}
	_, err := loop.Run(t.Context(), env, state.Spec{Limits: budget.Limits{MaxIterations: 3}, Decider: engine}, newState())
	if se, ok := errors.AsType[*loop.SaveError](err); !ok || !errors.Is(se, full) {
		t.Errorf("Run error = %v, want the save's failure", err)
	}
}

// feedbacker is a decider that writes feedback and no decision document.
type feedbacker struct{}

func (feedbacker) Preflight(in state.PreflightInput) state.Preflight { return engine.Preflight(in) }
func (feedbacker) Brief([]evidence.GateResult) string                { return "" }
func (feedbacker) Decide(in state.DecideInput) state.Decision {
	return state.Decision{Action: state.ActionRefine, Feedback: fmt.Sprintf("feedback of %d", in.Evidence.N)}
}

// Feedback alone is kept too.
func TestRunKeepsFeedbackWithoutADocument(t *testing.T) {
	t.Parallel()
	env := &scriptEnv{script: []func(int) (evidence.Iteration, error){agentExit(0)}}
	if _, err := loop.Run(t.Context(), env, state.Spec{Limits: budget.Limits{MaxIterations: 1}, Decider: feedbacker{}}, newState()); err != nil {
		t.Fatal(err)
	}
	if len(env.kept) != 1 || env.kept[0].Feedback != "feedback of 1" || env.kept[0].Decision != nil {
		t.Errorf("kept %+v, want iteration 1's feedback", env.kept)
	}
}

// cutEnv's iterations end with the result res and the error err.
type cutEnv struct {
	*scriptEnv
	res state.StepResult
	err error
}

func (e cutEnv) Step(ctx context.Context, r loop.StepRequest) (state.StepResult, error) {
	if r.Kind != loop.StepIteration {
		return e.scriptEnv.Step(ctx, r)
	}
	return e.res, e.err
}

// An attempt an interrupt cuts short is recorded: it counts the time it ran
// and what its agent was seen to spend (one with no time span counts no time).
func TestRunCountsTheIterationCutShort(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	spent := evidence.AgentResult{Usage: evidence.Usage{InputTokens: 100, TokensKnown: true}}
	for _, tc := range []struct {
		name     string
		res      state.StepResult
		wantWall state.Millis
	}{
		{"ran 2s", state.StepResult{Started: t0, Finished: t0.Add(2 * time.Second), Iteration: evidence.Iteration{Agent: spent}}, 2000},
		{"no end", state.StepResult{Started: t0, Iteration: evidence.Iteration{Agent: spent}}, 0},
		{"ends as it starts", state.StepResult{Started: t0, Finished: t0, Iteration: evidence.Iteration{Agent: spent}}, 0},
		{"no start", state.StepResult{Finished: t0, Iteration: evidence.Iteration{Agent: spent}}, 0},
	} {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		st := newState()
		out, _ := loop.Run(ctx, cutEnv{&scriptEnv{}, tc.res, context.Canceled}, state.Spec{Limits: budget.Limits{MaxIterations: 2}, Decider: engine}, st)
		if out.Status != state.StatusInterrupted || st.Spend.Wall != tc.wantWall {
			t.Errorf("%s: %s, wall %d ms, want interrupted, %d ms", tc.name, out.Status, st.Spend.Wall, tc.wantWall)
		}
		if len(st.Interrupted) != 1 || st.Interrupted[0].Seq != 1 || st.Interrupted[0].Duration != tc.wantWall || st.Spend.Usage.InputTokens != 100 {
			t.Errorf("%s: interrupted %+v, usage %+v", tc.name, st.Interrupted, st.Spend.Usage)
		}
	}
}

// A step's time counts only when it has a start and ends after it.
func TestRunCountsOnlyATimeSpan(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, res := range []state.StepResult{{Finished: t0}, {Started: t0}, {Started: t0, Finished: t0.Add(-time.Second)}} {
		res.Iteration.Started, res.Iteration.Finished = res.Started, res.Finished
		st := newState()
		if _, err := loop.Run(t.Context(), cutEnv{&scriptEnv{}, res, nil}, state.Spec{Limits: budget.Limits{MaxIterations: 1}, Decider: engine}, st); err != nil {
			t.Fatal(err)
		}
		if st.Spend.Wall != 0 || st.TotalIterations != 1 {
			t.Errorf("started %v, finished %v: wall %d ms after %d iterations, want 0 after 1", res.Started, res.Finished, st.Spend.Wall, st.TotalIterations)
		}
	}
}

// A signal that lands as an attempt's step ends (during its checkpoint, say)
// cuts the attempt like any other: it is not recorded as finished, the session
// ends interrupted, and the next session goes on from the tree as it is (the
// attempt's work kept, the floor of later rollbacks at it) — or, when the
// person asked (UndoCut), undoes it first — and runs the iteration again as a
// new attempt.
func TestSignalAsTheStepEndsCutsTheAttempt(t *testing.T) {
	t.Parallel()
	for _, undoCut := range []bool{false, true} {
		t.Run(fmt.Sprintf("undo_cut=%v", undoCut), func(t *testing.T) {
			t.Parallel()
			testSignalAsTheStepEnds(t, undoCut)
		})
	}
}

func testSignalAsTheStepEnds(t *testing.T, undoCut bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	env := &signalAtEnd{scriptEnv: &scriptEnv{script: []func(int) (evidence.Iteration, error){gate(true, 0)}, checkpoint: "c1"}, cancel: cancel}
	st := newState()
	out, _ := loop.Run(ctx, env, state.Spec{HasGates: true, Limits: budget.Limits{MaxIterations: 3}, Decider: engine}, st)
	if out.Status != state.StatusInterrupted {
		t.Fatalf("outcome %s, want interrupted", out.Status)
	}
	if len(st.History) != 0 || st.Best != nil || len(st.Interrupted) != 1 || st.Interrupted[0].Cut != "c1" {
		t.Fatalf("history %+v, best %+v, cut %+v: want no record, no best, the attempt cut with its checkpoint", st.History, st.Best, st.Interrupted)
	}
	if st.Undo == nil || st.Undo.Start != "s1" {
		t.Fatalf("undo = %+v, want the attempt undone from s1", st.Undo)
	}
	// The next session: the tree as it is, or the undo first, with what the
	// tree was left at.
	st.UndoCut = undoCut
	env2 := &scriptEnv{script: []func(int) (evidence.Iteration, error){gate(true, 0)}, checkpoint: "c2"}
	out, err := loop.Run(t.Context(), env2, state.Spec{HasGates: true, Limits: budget.Limits{MaxIterations: 3}, Decider: engine}, st)
	if err != nil || out.Status != state.StatusSucceeded {
		t.Fatalf("second session: %s, %v", out.Status, err)
	}
	reqs := env2.requests
	if undoCut {
		if r := reqs[0]; r.Kind != loop.StepRollback || r.Checkpoint != "s1" || r.Expect != "c1" || r.Seq != 1 {
			t.Errorf("first request %+v, want the undo of attempt 1 to s1 expecting c1", r)
		}
		reqs = reqs[1:]
	}
	if r := reqs[0]; r.Kind != loop.StepIteration || r.Iteration != 1 || r.Seq != 2 {
		t.Errorf("request %+v, want iteration 1 again as attempt 2 (no rollback unless asked)", r)
	}
	if st.Undo != nil || st.UndoCut || len(st.History) != 1 || st.History[0].Seq != 2 || st.Best == nil || st.Best.Ref != "c2" || st.Best.Seq != 2 {
		t.Errorf("undo %+v (asked %v), history %+v, best %+v", st.Undo, st.UndoCut, st.History, st.Best)
	}
	if want := map[bool]int{false: 1, true: 0}[undoCut]; st.Floor != want {
		t.Errorf("floor %d, want %d: rollbacks count from the tree as resumed when it kept the cut work", st.Floor, want)
	}
}

// A signal while the next session puts the tree back where a cut attempt
// started (the person asked, resume --undo-cut): the restore runs to its end (the environment does not cut it), the
// state records the tree there and nothing left to undo, and the session ends
// interrupted without starting an attempt.
func TestSignalDuringTheUndo(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	env := &signalAtRollback{scriptEnv: &scriptEnv{script: []func(int) (evidence.Iteration, error){gate(true, 0)}}, cancel: cancel}
	st := newState()
	st.Attempts, st.Tree = 1, "c1"
	st.Undo, st.UndoCut = &state.Undo{Seq: 1, Start: "s1", Cut: "c1"}, true
	out, err := loop.Run(ctx, env, state.Spec{HasGates: true, Limits: budget.Limits{MaxIterations: 3}, Decider: engine}, st)
	if err != nil || out.Status != state.StatusInterrupted {
		t.Fatalf("outcome %s, %v: want interrupted", out.Status, err)
	}
	if st.Undo != nil || st.Tree != "s1" {
		t.Errorf("undo %+v, tree %q: want nothing left to undo, the tree at s1", st.Undo, st.Tree)
	}
	if env.calls != 0 || st.Attempts != 1 || len(st.Interrupted) != 0 {
		t.Errorf("%d iteration steps, attempts %d, cut %+v: want none started", env.calls, st.Attempts, st.Interrupted)
	}
}

// signalAtRollback's rollbacks finish, and a signal lands as they do.
type signalAtRollback struct {
	*scriptEnv
	cancel func()
}

func (e *signalAtRollback) Step(ctx context.Context, r loop.StepRequest) (state.StepResult, error) {
	res, err := e.scriptEnv.Step(ctx, r)
	if r.Kind == loop.StepRollback {
		e.cancel()
	}
	return res, err
}

// An iteration whose checkpoint failed (no commit, yet the run has
// checkpoints) is never the best checkpoint.
func TestNoBestWithoutACommit(t *testing.T) {
	t.Parallel()
	env := &startOnly{scriptEnv: &scriptEnv{script: []func(int) (evidence.Iteration, error){gate(true, 0)}}}
	st := newState()
	if _, err := loop.Run(t.Context(), env, state.Spec{HasGates: true, Limits: budget.Limits{MaxIterations: 3}, Decider: engine}, st); err != nil {
		t.Fatal(err)
	}
	if len(st.History) != 1 || st.Best != nil {
		t.Errorf("history %+v, best %+v: want the iteration recorded and no best without a commit", st.History, st.Best)
	}
}

// signalAtEnd's iteration step finishes, then the run is signalled.
type signalAtEnd struct {
	*scriptEnv
	cancel func()
}

func (e *signalAtEnd) Step(ctx context.Context, r loop.StepRequest) (state.StepResult, error) {
	res, err := e.scriptEnv.Step(ctx, r)
	if r.Kind == loop.StepIteration {
		res.Start = "s1"
		e.cancel()
	}
	return res, err
}

// startOnly's iterations have a start checkpoint but their end checkpoint failed.
type startOnly struct{ *scriptEnv }

func (e *startOnly) Step(ctx context.Context, r loop.StepRequest) (state.StepResult, error) {
	res, err := e.scriptEnv.Step(ctx, r)
	if r.Kind == loop.StepIteration {
		res.Start, res.Checkpoint = "s1", ""
	}
	return res, err
}

// The run's one spend is its agent's and its reviewer's: --max-cost counts
// what the reviewer used, and says it in plain money.
func TestCostBudgetCountsTheReviewer(t *testing.T) {
	t.Parallel()
	reviewed := func(int) (evidence.Iteration, error) {
		ev, _ := gate(false, 1)(0)
		ev.Agent.Usage = evidence.Usage{CostUSD: 0.01, CostKnown: true}
		ev.Review = &evidence.Review{Verdict: evidence.VerdictRequestChanges, Usage: evidence.Usage{CostUSD: 0.01, CostKnown: true}}
		return ev, nil
	}
	env := &scriptEnv{script: []func(int) (evidence.Iteration, error){reviewed}}
	st := newState()
	spec := state.Spec{HasGates: true, HasReviewer: true, Limits: budget.Limits{MaxIterations: 5, MaxCostUSD: 0.012}, Decider: engine}
	out, err := loop.Run(t.Context(), env, spec, st)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != state.StatusAborted || !strings.Contains(out.Reason, "cost: $0.020 spent of $0.012") {
		t.Errorf("outcome %s %q, want aborted on the agent's and the reviewer's $0.020", out.Status, out.Reason)
	}
	if len(st.History) != 1 || st.History[0].ReviewUsage.CostUSD != 0.01 || st.Spend.Total().CostUSD != 0.02 {
		t.Errorf("history %+v, total %+v", st.History, st.Spend.Total())
	}
}

// The escalation's report is kept before the state that says the run
// escalated is saved (a kill between them left an escalated run without its
// report), and it recalls the run's earlier segments.
func TestEscalationKeptBeforeTheEscalatedState(t *testing.T) {
	t.Parallel()
	env := &orderEnv{scriptEnv: &scriptEnv{script: []func(int) (evidence.Iteration, error){gate(false, 1)}}}
	st := newState()
	// One segment escalated already, answered with guidance.
	state.AddHandoff(st, state.Handoff{Kind: state.HandoffStart, By: "dev@host"})
	st.History = []state.Record{{N: 1, Seq: 1, Segment: 1, Decision: string(state.ActionEscalate)}}
	st.Attempts, st.Iteration, st.Segment, st.TotalIterations = 1, 1, 1, 1
	state.ApplyGuidance(st, state.Guidance{Text: "look at the README", By: "dev@host"})
	out, err := loop.Run(t.Context(), env, state.Spec{HasGates: true, Limits: budget.Limits{MaxIterations: 1, FailureThreshold: 5}, Decider: engine}, st)
	if err != nil || out.Status != state.StatusEscalated {
		t.Fatalf("outcome %s, %v: want escalated", out.Status, err)
	}
	if len(env.order) == 0 || env.order[0] != "keep escalation" {
		t.Fatalf("order %v: want the report kept before the escalated state is saved", env.order)
	}
	e := env.escalation
	if e == nil || e.Segment != 2 || len(e.Segments) != 2 {
		t.Fatalf("escalation %+v: want segment 2 with both segments recalled", e)
	}
	want := []decision.SegmentSummary{
		{N: 1, Opened: "started by dev@host", Attempts: "1", Ended: "escalated after attempt 1"},
		{N: 2, Opened: "guidance from dev@host", Guidance: "look at the README", Attempts: "2"},
	}
	if diff := cmp.Diff(want, e.Segments); diff != "" {
		t.Errorf("segments (-want +got):\n%s", diff)
	}
}

// orderEnv notes when the escalation's report is kept and when a state that
// says escalated is first saved.
type orderEnv struct {
	*scriptEnv
	order      []string
	escalation *state.Escalation
}

func (e *orderEnv) Keep(ctx context.Context, a state.Artifacts) error {
	if a.Escalation != nil {
		e.order, e.escalation = append(e.order, "keep escalation"), a.Escalation
	}
	return e.scriptEnv.Keep(ctx, a)
}

func (e *orderEnv) Save(ctx context.Context, st *state.State) error {
	if st.Status == state.StatusEscalated && !slices.Contains(e.order, "save escalated") {
		e.order = append(e.order, "save escalated")
	}
	return e.scriptEnv.Save(ctx, st)
}

// TestRunCarriesOutTheLastDecision: a session killed after it saved an
// iteration whose decision ends the run done, before it saved the end,
// leaves the state running; the next session ends the run as decided, with
// no more iterations: not escalated as at its limit with the goal not met,
// not working on after the goal was met. A decision of an earlier segment
// (the person's guidance came since) is not carried out again.
func TestRunCarriesOutTheLastDecision(t *testing.T) {
	t.Parallel()
	completed := func(int) (evidence.Iteration, error) {
		return evidence.Iteration{Agent: evidence.AgentResult{Completed: true}}, nil
	}
	for _, tc := range []struct {
		name       string
		spec       state.Spec
		step       func(int) (evidence.Iteration, error)
		guided     bool // the person's guidance came after the decision
		wantStatus state.Status
		wantReason string
		wantIters  int
	}{
		{name: "goal met at the last iteration", spec: state.Spec{Limits: budget.Limits{MaxIterations: 1}, HasGates: true},
			step: gate(true, 0), wantStatus: state.StatusSucceeded, wantReason: "all required gates passed", wantIters: 1},
		{name: "goal met before the last iteration", spec: state.Spec{Limits: budget.Limits{MaxIterations: 3}, HasGates: true},
			step: gate(true, 0), wantStatus: state.StatusSucceeded, wantReason: "all required gates passed", wantIters: 1},
		{name: "the agent's completion marker", spec: state.Spec{Limits: budget.Limits{MaxIterations: 3}},
			step: completed, wantStatus: state.StatusCompleted, wantReason: "the agent printed the completion marker", wantIters: 1},
		{name: "guidance since", spec: state.Spec{Limits: budget.Limits{MaxIterations: 3}, HasGates: true},
			step: gate(true, 0), guided: true, wantStatus: state.StatusSucceeded, wantReason: "all required gates passed", wantIters: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spec := tc.spec
			spec.Decider = engine
			first := &scriptEnv{script: []func(int) (evidence.Iteration, error){tc.step}}
			if _, err := loop.Run(t.Context(), first, spec, newState()); err != nil {
				t.Fatal(err)
			}
			// The kill: the state as saved with the iteration, before the end.
			var st *state.State
			for i := range first.saved {
				if s := first.saved[i]; s.TotalIterations == 1 && s.Status == state.StatusRunning {
					st = &s
				}
			}
			if st == nil || st.LastDecision == "" {
				t.Fatalf("no save of the decided iteration before the end: %+v", first.saved)
			}
			if tc.guided {
				state.ApplyGuidance(st, state.Guidance{Text: "go on"})
			}
			st.Sessions = append(st.Sessions, state.Session{})
			next := &scriptEnv{script: []func(int) (evidence.Iteration, error){tc.step}}
			out, err := loop.Run(t.Context(), next, spec, st)
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != tc.wantStatus || !strings.HasPrefix(out.Reason, tc.wantReason) || st.Status != tc.wantStatus {
				t.Errorf("outcome %+v (state %s), want %s: %s", out, st.Status, tc.wantStatus, tc.wantReason)
			}
			if st.TotalIterations != tc.wantIters || next.calls != tc.wantIters-1 {
				t.Errorf("%d iterations recorded, %d run by the next session; want %d and %d", st.TotalIterations, next.calls, tc.wantIters, tc.wantIters-1)
			}
			if fin := events(next, state.EventRunFinished); len(fin) != 1 || fin[0].Data.(state.RunFinished).Status != tc.wantStatus {
				t.Errorf("run_finished events %+v, want one, %s", fin, tc.wantStatus)
			}
		})
	}
}
