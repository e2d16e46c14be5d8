package decide

import (
	"testing"

	"github.com/agentloop/agentloop/internal/loop"
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
	}{
		{"plateau escalates", flat, []string{"test:A", "test:B"},
			choice{action: loop.ActionEscalate, rule: RulePlateau, class: "stuck", reason: "still stuck after 2 simplifications: plateau: best quality 0.00 not improved by 0.02 in 2 iterations (variance of last 3: 0.0000)"},
			"no progress for 3 iterations, still 2 failures (test:A (+1 more)); a fresh attempt from the best checkpoint did not help"},
		{"stuck escalates", rising, []string{"test:A"},
			choice{action: loop.ActionEscalate, rule: RuleStuck, class: "stuck", reason: "still stuck after 1 simplification: stuck: same failures 3 iterations in a row: test:A"},
			"no progress for 2 iterations, still 1 failure (test:A); a fresh attempt from the best checkpoint did not help"},
		{"a stuck shape is plain already", rising, []string{"test:A"},
			choice{action: loop.ActionSimplify, rule: RuleStuck, reason: "stuck: no change to the code two iterations in a row"},
			"stuck: no change to the code two iterations in a row"},
		{"plateau simplifies, nothing failing is named", flat, nil,
			choice{action: loop.ActionSimplify, rule: RulePlateau, reason: "plateau: …"},
			"the best result has not improved for 3 iterations: a fresh attempt from the best checkpoint"},
		{"plateau expands", flat, []string{"build:b.go"},
			choice{action: loop.ActionExpand, rule: RulePlateau, reason: "plateau with missing context: best quality 0.00 …"},
			"the best result has not improved for 3 iterations, still 1 failure (build:b.go): the files and symbols the errors name go into the prompt"},
		{"another rule keeps its reason", flat, nil,
			choice{action: loop.ActionEscalate, rule: RuleMaxIter, class: "max_iterations", reason: "max iterations reached: 3 of 3"},
			"max iterations reached: 3 of 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cur := tt.seq[len(tt.seq)-1]
			cur.Failing = tt.fail
			f := &facts{p: DefaultPolicy(), seq: tt.seq, past: tt.seq[:len(tt.seq)-1], cur: cur}
			if got := said(f, nil, tt.c); got != tt.want {
				t.Errorf("said = %q, want %q", got, tt.want)
			}
		})
	}
}
