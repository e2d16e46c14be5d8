package evidence

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/budget"
)

func TestUsageCost(t *testing.T) {
	t.Parallel()
	u := Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 100, CacheWriteTokens: 1, TokensKnown: true, CostUSD: 0.25, CostKnown: true}
	c := u.Cost(time.Second)
	if diff := cmp.Diff(budget.Cost{Tokens: 116, TokensKnown: true, CostUSD: 0.25, CostKnown: true, Duration: time.Second}, c); diff != "" {
		t.Errorf("Cost (-want +got):\n%s", diff)
	}
	s := budget.Total([]budget.Cost{c, {Duration: time.Second}})
	want := budget.Spent{Tokens: 116, CostUSD: 0.25, Duration: 2 * time.Second, Iterations: 2}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("Total (-want +got):\n%s", diff)
	}
}

func TestUsageSpent(t *testing.T) {
	t.Parallel()
	u := Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4, TokensKnown: true, CostUSD: 0.5}
	want := budget.Spent{Tokens: 10, TokensKnown: true, CostUSD: 0.5, Duration: time.Minute, Iterations: 2}
	if diff := cmp.Diff(want, u.Spent(time.Minute, 2)); diff != "" {
		t.Errorf("Spent (-want +got):\n%s", diff)
	}
}

func TestDisplayVerdict(t *testing.T) {
	for v, want := range map[string]string{
		"approve": "APPROVED", "Approved": "APPROVED", "LGTM": "APPROVED",
		"request_changes": "NEEDS_REVISION", "changes-requested": "NEEDS_REVISION", "reject": "NEEDS_REVISION",
		"unknown": "UNKNOWN", "": "UNKNOWN", "bogus": "UNKNOWN",
	} {
		if got := DisplayVerdict(v); got != want {
			t.Errorf("DisplayVerdict(%q) = %q, want %q", v, got, want)
		}
	}
}
