package decision

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDocumentYAML(t *testing.T) {
	t.Parallel()
	d := Document{Decision: Body{Action: "retry", Iteration: 1, Strategy: "refine",
		Feedback: &Feedback{Summary: "1 failure", ActionableItems: []string{"test failed: TestAdd"}, Priority: "high"},
		Next:     &Next{Iteration: 2, Attempt: 1}}}
	b, err := d.YAML()
	if err != nil {
		t.Fatal(err)
	}
	want := `decision:
  action: retry
  iteration: 1
  feedback:
    summary: 1 failure
    actionable_items:
      - 'test failed: TestAdd'
    priority: high
  strategy: refine
  next:
    iteration: 2
    attempt: 1
`
	if string(b) != want {
		t.Errorf("YAML\n%s\nwant\n%s", b, want)
	}
}

// TestPlainData: the documents cross a workflow's history as JSON and come back
// the same.
func TestPlainData(t *testing.T) {
	t.Parallel()
	for _, v := range []any{
		&Document{Decision: Body{Action: "escalate", Triggers: []Trigger{{ID: "stuck", Severity: 0.8, Fixable: true, Evidence: "same failures"}},
			Budget:     &Budget{Iterations: 3, Limits: []BudgetLine{{Name: "cost_usd", Spent: 1, Limit: 2, Remaining: 1, PerIter: 0.33, State: "ok"}}},
			Assessment: &Assessment{QualityTrend: []float64{0.2, 0.2}, Trend: "flat", Recommendation: "escalate"}}},
		&EscalationReport{Task: "fix", Reason: "stuck", History: []HistoryRow{{N: 1, Did: "changed 3 lines", Gates: "1 failing", Decision: "refine", Failing: 1, Quality: 0.5, Cost: "unknown"}},
			Question: "Which?", Options: []Option{{Label: "A", TradeOff: "B changes"}}, Diff: "--- a\n+++ b\n"},
	} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		back := reflect.New(reflect.TypeOf(v).Elem()).Interface()
		if err := json.Unmarshal(b, back); err != nil || !reflect.DeepEqual(back, v) {
			t.Errorf("%T through JSON: %+v, %v", v, back, err)
		}
	}
}

func TestEscalationMarkdown(t *testing.T) {
	t.Parallel()
	r := EscalationReport{Task: "fix the\nparser", Reason: "stuck", Question: "Which?",
		History:  []HistoryRow{{N: 1, Did: "a | b", Decision: "refine"}},
		Options:  []Option{{Label: "A", TradeOff: "x"}, {Label: "B", TradeOff: "y"}},
		Feedback: "FAIL ```x```", Diff: "+x\n"}
	md := r.Markdown()
	for _, want := range []string{"# Escalation: fix the parser\n", `| 1 | a \| b | — |`, "1. **A** — x\n2. **B** — y", "```text\nFAIL ʼʼʼxʼʼʼ\n```", "```diff\n+x\n```"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if got := OptionLines(r.Options); !reflect.DeepEqual(got, []string{"1) A — x", "2) B — y"}) {
		t.Errorf("OptionLines = %q", got)
	}
	if got := r.AttemptsSummary(); len(got) != 1 || got[0] != "iteration 1: a | b; tests ; refine" {
		t.Errorf("AttemptsSummary = %q", got)
	}
}
