package decide

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/evidence"
)

// The question fits the pattern: steady progress cut by the iteration limit
// asks whether to go on, with the progress and the command that raises the
// limit, and names no failure the agent may never have come to; a run that
// stalled before the limit still asks what the agent misses.
func TestQuestionFitsThePattern(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		base     []string
		hist     []evidence.Iteration
		ev       evidence.Iteration
		reason   string
		question string
		resume   string // an option's command
		unnamed  string // a test the question must not name
	}{
		{name: "steady progress at the limit", base: []string{"A", "B", "C", "D"},
			hist: []evidence.Iteration{iter(1, "B", "C", "D"), iter(2, "C", "D")}, ev: iter(3, "D"),
			reason:   "steady progress: 3 of 4 fixed, one per iteration",
			question: "The run made steady progress (3 of 4 fixed, one per iteration) when it reached its limit of 3 iterations: go on with a higher limit?",
			resume:   `--max-iterations 2 --guidance "go on"`, unnamed: "test:D"},
		{name: "two a run", base: []string{"A", "B", "C", "D", "E", "F", "G", "H"},
			hist: []evidence.Iteration{iter(1, "C", "D", "E", "F", "G", "H"), iter(2, "E", "F", "G", "H")}, ev: iter(3, "G", "H"),
			reason: "6 of 8 fixed, 2 per iteration", question: "go on with a higher limit?", resume: "--max-iterations 2 "},
		{name: "stalled at the limit asks what the agent misses", base: []string{"A", "B"},
			hist: []evidence.Iteration{iter(1, "B"), iter(2, "B")}, ev: with(iter(3, "B"), func(ev *evidence.Iteration) { ev.Diff.Hash = "other" }),
			question: "What does the agent miss about test:B, which kept failing?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := DefaultPolicy()
			p.Patience, p.StuckRepeats = 10, 10 // the limit comes first
			spec := gated()
			spec.Limits.MaxIterations = 3
			st := pastFrom(baseline(tt.base), p, spec, tt.hist)
			d := New(p).Decide(limited{MaxIterations: 3}.input(st, spec, tt.ev))
			if d.Escalation == nil || d.Escalation.Report == nil {
				t.Fatalf("%s (%s), want an escalation", d.Action, d.Message)
			}
			r := d.Escalation.Report
			if !strings.Contains(d.Message, tt.reason) || !strings.Contains(r.Question, tt.question) {
				t.Errorf("reason %q, question %q; want %q, %q", d.Message, r.Question, tt.reason, tt.question)
			}
			if tt.unnamed != "" && strings.Contains(r.Question, tt.unnamed) {
				t.Errorf("question %q names %s", r.Question, tt.unnamed)
			}
			var resumes []string
			for _, o := range r.Options {
				resumes = append(resumes, o.Resume)
			}
			if tt.resume != "" && !strings.Contains(strings.Join(resumes, "\n"), tt.resume) {
				t.Errorf("options' commands %q lack %q", resumes, tt.resume)
			}
		})
	}
}
