package engine

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/decide"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
)

// fixedGates are gates whose every run finds the same.
type fixedGates []evidence.GateResult

func (g fixedGates) RunGates(context.Context, string, string, []evidence.GateResult) ([]evidence.GateResult, error) {
	return slices.Clone(g), nil
}
func (g fixedGates) Count() int { return len(g) }

// TestReviewerAskedAsTheDeciderJudges: the reviewer is asked when the
// required gates pass once the failures outside the task are set aside (the
// decider's rule, decide.SetAside), and is told which they are; a failure
// the agent brought in, or a run told no task, leaves a failed gate and the
// reviewer unasked. It was asked only when every required gate passed as
// it ran, and a run with a failure there before it never had a verdict.
func TestReviewerAskedAsTheDeciderJudges(t *testing.T) {
	t.Parallel()
	remote := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestRemote", File: "remote_test.go", Message: "CALC_TOKEN is not set"}
	add := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestAdd", File: "calc_test.go", Message: "Add(2, 3) = -1, want 5"}
	sub := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestSub", File: "calc_test.go", Message: "Sub(3, 2) = 5, want 1"}
	base := []evidence.GateResult{{Name: "tests", Required: true, Findings: []evidence.Finding{add, remote}}}
	tests := []struct {
		name    string
		told    string
		gate    evidence.GateResult
		asked   bool
		outside []string
	}{
		{name: "only a failure outside the task: asked, and told it", told: "Fix TestAdd.",
			gate: evidence.GateResult{Name: "tests", Required: true, Preexisting: []evidence.Finding{remote}}, asked: true, outside: []string{"TEST|go|calc.TestRemote"}},
		{name: "and a failure the agent brought in: not asked", told: "Fix TestAdd.",
			gate: evidence.GateResult{Name: "tests", Required: true, Findings: []evidence.Finding{sub}, Preexisting: []evidence.Finding{remote}}},
		{name: "told no task, the failure is the run's: not asked",
			gate: evidence.GateResult{Name: "tests", Required: true, Preexisting: []evidence.Finding{remote}}},
		{name: "the gates pass: asked, nothing outside", told: "Fix TestAdd.",
			gate: evidence.GateResult{Name: "tests", Required: true, Passed: true}, asked: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
			reviewer := &fakeReviewer{}
			l := &Local{
				Name: "build", RunID: "r1", WorkDir: t.TempDir(), RunDir: t.TempDir(), Task: "fix it",
				Agent: &scriptedAgent{results: []evidence.AgentResult{{Agent: "fake"}}}, Gates: fixedGates{tt.gate},
				SetAside: decide.SetAside, Reviewer: reviewer, Prompt: &fakePrompter{}, Store: &memStore{}, Events: &memEvents{}, Screen: &warnings{},
				Now:   func() time.Time { clock = clock.Add(time.Second); return clock },
				Sleep: func(context.Context, time.Duration) error { return nil },
				Log:   slog.New(slog.NewTextHandler(io.Discard, nil)),
			}
			res, err := l.Step(t.Context(), loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Baseline: base, Told: tt.told})
			if err != nil {
				t.Fatal(err)
			}
			if asked := res.Iteration.Review != nil; asked != tt.asked {
				t.Fatalf("reviewer asked: %v, want %v", asked, tt.asked)
			}
			if !slices.Equal(reviewer.got.OutsideTask, tt.outside) {
				t.Errorf("reviewer told %v outside the task, want %v", reviewer.got.OutsideTask, tt.outside)
			}
			if g := res.Iteration.Gates[0]; g.Passed != tt.gate.Passed || len(g.Preexisting) != len(tt.gate.Preexisting) {
				t.Errorf("the iteration's gate %+v is not as it ran: the decider sets aside, not the engine", g)
			}
		})
	}
}
