package decide

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// A stop on the loop's own evidence hands over: the escalation report with
// the pattern and one question. A churn (the failure count flat, the failing
// set changing every iteration) is named with its chain; the failure
// threshold reached by work that changed code escalates with the pattern,
// where it aborted with no report.
func TestGivingUpHandsOver(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		spec      state.Spec
		base      []string
		hist      []evidence.Iteration
		ev        evidence.Iteration
		class     string
		pattern   string
		question  string
		noMention string // a test the question must not name
	}{
		{name: "churn", base: []string{"A"}, hist: []evidence.Iteration{iter(1, "B")}, ev: iter(2, "C"), class: decision.TriggerChurn,
			pattern:  "churn: each iteration fixes one test and breaks another: test:A→test:B→test:C",
			question: "trades one failure for another (each iteration fixes one test and breaks another: test:A→test:B→test:C)"},
		{name: "threshold", spec: thresholded(3), hist: []evidence.Iteration{iter(1, "A", "B"), iter(2, "A", "C")}, ev: iter(3, "A", "D"), class: decision.ClassThreshold,
			pattern: "test:A failed in all 3 iterations", question: "3 iterations in a row failed (test:A failed in all 3 iterations): what should the agent do differently?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := tt.spec
			if !spec.HasGates {
				spec = gated()
			}
			p := DefaultPolicy()
			p.Patience = 5 // no plateau: the threshold comes first
			st := pastFrom(baseline(tt.base), p, spec, tt.hist)
			d := New(p).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: tt.ev})
			if d.Action != state.ActionEscalate || d.Escalation == nil || d.Escalation.Report == nil {
				t.Fatalf("%s (%s), want an escalation with its report", d.Action, d.Message)
			}
			r := d.Escalation.Report
			if r.Class != tt.class || r.Pattern != tt.pattern || !strings.Contains(r.Question, tt.question) {
				t.Errorf("class %q, pattern %q, question %q; want %q, %q, %q", r.Class, r.Pattern, r.Question, tt.class, tt.pattern, tt.question)
			}
		})
	}
}
