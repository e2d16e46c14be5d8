package decide

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/state"
)

// A run that makes no progress is told in plain words; other reasons are
// kept as the rule gave them.
func TestSaid(t *testing.T) {
	t.Parallel()
	flat := []point{{N: 1}, {N: 2}, {N: 3}}
	rising := []point{{N: 1, Quality: 0.2}, {N: 2, Quality: 0.5}, {N: 3, Quality: 0.5}, {N: 4, Quality: 0.5}}
	tests := []struct {
		name string
		seq  []point
		fail []string
		c    choice
		want string
		// noCheckpoints: the engine keeps none (outside git): nothing promises
		// the best checkpoint.
		noCheckpoints bool
	}{
		{"plateau escalates", flat, []string{"test:A", "test:B"},
			choice{action: state.ActionEscalate, rule: RulePlateau, class: "stuck", reason: "still stuck after 2 simplifications: plateau: best quality 0.00 not improved by 0.02 in 2 iterations (variance of last 3: 0.0000)"},
			"no progress for 3 iterations, still 2 failures (test:A (+1 more)); a fresh attempt from the best checkpoint did not help", false},
		{"stuck escalates", rising, []string{"test:A"},
			choice{action: state.ActionEscalate, rule: RuleStuck, class: "stuck", reason: "still stuck after 1 simplification: stuck: same failures 3 iterations in a row: test:A"},
			"no progress for 2 iterations, still 1 failure (test:A); a fresh attempt from the best checkpoint did not help", false},
		{"a stuck shape is plain already", rising, []string{"test:A"},
			choice{action: state.ActionSimplify, rule: RuleStuck, reason: "stuck: no change to the code two iterations in a row"},
			"stuck: no change to the code two iterations in a row", false},
		{"plateau simplifies, nothing failing is named", flat, nil,
			choice{action: state.ActionSimplify, rule: RulePlateau, reason: "plateau: …"},
			"the best result has not improved for 3 iterations: a fresh attempt from the best checkpoint", false},
		{"plateau expands", flat, []string{"build:b.go"},
			choice{action: state.ActionExpand, rule: RulePlateau, reason: "plateau with missing context: best quality 0.00 …"},
			"the best result has not improved for 3 iterations, still 1 failure (build:b.go): the files and symbols the errors name go into the prompt", false},
		{"stuck escalates without checkpoints", rising, []string{"test:A"},
			choice{action: state.ActionEscalate, rule: RuleStuck, class: "stuck", reason: "still stuck after 1 simplification: …"},
			"no progress for 2 iterations, still 1 failure (test:A); a fresh attempt (from the work tree as it was: checkpoints are off) did not help", true},
		{"plateau simplifies without checkpoints", flat, nil,
			choice{action: state.ActionSimplify, rule: RulePlateau, reason: "plateau: …"},
			"the best result has not improved for 3 iterations: a fresh attempt, from the work tree as it is (checkpoints are off)", true},
		{"another rule keeps its reason", flat, nil,
			choice{action: state.ActionEscalate, rule: RuleMaxIter, class: "max_iterations", reason: "max iterations reached: 3 of 3"},
			"max iterations reached: 3 of 3", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cur := tt.seq[len(tt.seq)-1]
			cur.Failing = tt.fail
			f := &facts{p: DefaultPolicy(), seq: tt.seq, past: tt.seq[:len(tt.seq)-1], cur: cur,
				in: state.DecideInput{Spec: &state.Spec{NoCheckpoints: tt.noCheckpoints}}}
			if got := said(f, nil, tt.c); got != tt.want {
				t.Errorf("said = %q, want %q", got, tt.want)
			}
		})
	}
}

// An escalation's options and recommendation name the best checkpoint only
// when the engine keeps checkpoints; without them, the work tree.
func TestAskWithoutCheckpoints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		noCheckpoints bool
		want          []string
	}{
		{"checkpoints", false, []string{"Resume with your guidance: the loop continues from the best checkpoint", "Accept the best checkpoint as it is", "Accept the best checkpoint and finish"}},
		{"no checkpoints", true, []string{"Resume with your guidance: the loop continues from the work tree as it is (checkpoints are off)", "Accept the work tree as it is", "Abort the run: nothing more is spent; the work tree stays as the loop left it", "Accept the work tree and finish"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cur := point{N: 3, Quality: 0.95, Failing: []string{"test:A"}}
			f := &facts{p: DefaultPolicy(), past: []point{{N: 1, Quality: 0.9, Ref: "abc"}}, cur: cur,
				in: state.DecideInput{State: &state.State{}, Spec: &state.Spec{NoCheckpoints: tt.noCheckpoints}}}
			q, opts, rec := ask(f, nil, choice{action: state.ActionEscalate, rule: RuleStuck, class: "stuck"})
			var b strings.Builder
			b.WriteString(q + "\n")
			for _, o := range opts {
				b.WriteString(o.Label + ": " + o.TradeOff + "\n")
			}
			b.WriteString(rec)
			text := b.String()
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("the escalation lacks %q:\n%s", w, text)
				}
			}
			if tt.noCheckpoints && strings.Contains(text, "checkpoint") && !strings.Contains(text, "checkpoints are off") {
				t.Errorf("without checkpoints the escalation names one:\n%s", text)
			}
		})
	}
}
