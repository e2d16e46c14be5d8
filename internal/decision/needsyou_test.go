package decision

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEscalationNeedsYou(t *testing.T) {
	t.Parallel()
	r := EscalationReport{
		Run: "build", Flags: "--engine temporal", Reason: "stuck: the same 2 tests fail 3 times", Pattern: "same failure",
		History:  []HistoryRow{{N: 1, Did: "edited a.go", Gates: "2 failing"}, {N: 2, Did: "edited b.go", Gates: "2 failing"}},
		Question: "Is the test right?",
		Options: []Option{
			{Label: "Give guidance", TradeOff: "another attempt"},
			{Label: "Accept", TradeOff: "keep the best checkpoint", Resume: "--accept"},
		},
	}
	want := NeedsYou{
		Kind: NeedsEscalated, Run: "build", Question: "Is the test right?",
		Evidence: "stuck: the same 2 tests fail 3 times\nPattern: same failure\n2 iterations; the last: edited b.go; tests 2 failing",
		Options: []Answer{
			{Label: "Give guidance", TradeOff: "another attempt", Command: `agentloop resume build --guidance "..." --engine temporal`},
			{Label: "Accept", TradeOff: "keep the best checkpoint", Command: "agentloop resume build --accept --engine temporal"},
		},
	}
	if diff := cmp.Diff(want, r.NeedsYou()); diff != "" {
		t.Errorf("NeedsYou() mismatch (-want +got):\n%s", diff)
	}
	// Without a run name there is no command to give, and a question is always asked.
	got := EscalationReport{Reason: "limit", Options: []Option{{Label: "Guide"}}}.NeedsYou()
	if got.Options[0].Command != "" || got.Question == "" || got.Evidence != "limit" {
		t.Errorf("NeedsYou() of a report without a run = %+v", got)
	}
}
