package agent

import (
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/google/go-cmp/cmp"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	claude, codex, aider := mustLookup(t, "claude"), mustLookup(t, "codex"), mustLookup(t, "aider")
	reset := time.Date(2026, 7, 23, 5, 0, 0, 0, time.UTC)
	custom := mustLookup(t, "custom").Merge(Override{Binary: "x"})
	custom.RateLimitPatterns = []string{`slow down, cowboy`}
	tests := []struct {
		name   string
		p      Preset
		exit   int
		out    Outcome
		stderr string
		bytes  int64
		want   Class
	}{
		{"ok", claude, 0, Outcome{Terminal: true}, "", 100, Class{Outcome: evidence.OutcomeSucceeded}},
		{"ok without terminal record format", aider, 0, Outcome{}, "", 100, Class{Outcome: evidence.OutcomeSucceeded}},
		{"rate limited by the stream", claude, 1, Outcome{Terminal: true, IsError: true, RateLimited: true, ResetAt: reset, Reason: "rate limit reached (five_hour)"},
			"", 100, Class{Outcome: evidence.OutcomeRateLimited, ResetAt: reset, Reason: "rate limit reached (five_hour)"}},
		{"overloaded", claude, 1, Outcome{Terminal: true, IsError: true, Overloaded: true, Reason: "api_error (HTTP 529)"}, "", 100,
			Class{Outcome: evidence.OutcomeTransient, Reason: "api_error (HTTP 529)"}},
		{"stderr 429 on failure", codex, 1, Outcome{}, "warning: x\nError: 429 Too Many Requests\n", 100,
			Class{Outcome: evidence.OutcomeRateLimited, Reason: "warning: x | Error: 429 Too Many Requests"}},
		{"stderr 429 on failure, generic", custom, 1, Outcome{}, "warning: x\nError: 429 Too Many Requests\n", 100,
			Class{Outcome: evidence.OutcomeRateLimited, Reason: "rate limited: 429"}},
		{"stderr quota ignored on success", claude, 0, Outcome{Terminal: true}, "your quota is fine", 100, Class{Outcome: evidence.OutcomeSucceeded}},
		{"preset pattern", custom, 3, Outcome{}, "slow down, cowboy\n", 10, Class{Outcome: evidence.OutcomeRateLimited, Reason: "rate limited: slow down, cowboy"}},
		{"network error on stderr", codex, 1, Outcome{}, "error: connect ECONNREFUSED 1.2.3.4:443\n", 100,
			Class{Outcome: evidence.OutcomeTransient, Reason: "error: connect ECONNREFUSED 1.2.3.4:443"}},
		{"parser transient", codex, 1, Outcome{Transient: true, Reason: "stream disconnected"}, "", 100,
			Class{Outcome: evidence.OutcomeTransient, Reason: "stream disconnected"}},
		{"killed by signal", claude, -1, Outcome{}, "", 5000, Class{Outcome: evidence.OutcomeKilled, Reason: "killed by a signal (exit -1)"}},
		{"sigterm exit 143", claude, 143, Outcome{}, "", 5000, Class{Outcome: evidence.OutcomeKilled, Reason: "killed by a signal (exit 143)"}},
		{"sigkill exit 137", claude, 137, Outcome{}, "", 5000, Class{Outcome: evidence.OutcomeKilled, Reason: "killed by a signal (exit 137)"}},
		{"preset pattern in the agent's own words", custom, 1, Outcome{Reason: "server: slow down, cowboy"}, "", 100,
			Class{Outcome: evidence.OutcomeRateLimited, Reason: "server: slow down, cowboy"}},
		{"crash before output", claude, 1, Outcome{}, "", 0, Class{Outcome: evidence.OutcomeCrashed, Reason: "exited 1 before any output"}},
		{"failed after work", claude, 1, Outcome{Terminal: true, IsError: true, Reason: "max_turns: Reached maximum number of turns (30)"}, "", 9000,
			Class{Outcome: evidence.OutcomeFailed, Reason: "max_turns: Reached maximum number of turns (30)"}},
		{"exit 0 without terminal record", claude, 0, Outcome{}, "", 9000,
			Class{Outcome: evidence.OutcomeCrashed, Reason: "the output ended without its final record (crash, kill or wrong format)"}},
		{"plain failure with stderr", custom, 2, Outcome{}, "usage: x [flags]\nunknown flag --foo\n", 40,
			Class{Outcome: evidence.OutcomeFailed, Reason: "exit 2: unknown flag --foo"}},
		{"narrow stdout text not on stderr", claude, 1, Outcome{Terminal: true, IsError: true, Reason: "error_during_execution: boom"},
			"", 100, Class{Outcome: evidence.OutcomeFailed, Reason: "error_during_execution: boom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Classify(tt.p, tt.exit, tt.out, []byte(tt.stderr), tt.bytes)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Classify() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	s, m := time.Second, time.Minute
	tests := []struct {
		attempt int
		jitter  float64
		want    time.Duration
	}{
		{0, 0, 500 * time.Millisecond},
		{0, 0.5, 750 * time.Millisecond},
		{1, 0, s},
		{3, 0.999999999, 8*s - 4*time.Nanosecond},
		{6, 0, 30 * s},
		{60, 1, m},
		{1000, 0, 30 * s},
		{-1, 0.5, 0},
		{2, -5, 2 * s},
	}
	for _, tt := range tests {
		if got := Backoff(tt.attempt, s, m, tt.jitter); got != tt.want {
			t.Errorf("Backoff(%d, 1s, 1m, %v) = %v, want %v", tt.attempt, tt.jitter, got, tt.want)
		}
	}
	if got := Backoff(200, s, 0, 0); got <= 0 {
		t.Errorf("Backoff without a cap overflowed: %v", got)
	}
}

func TestEstimate(t *testing.T) {
	t.Parallel()
	table := Prices{Models: map[string]Price{"gpt-5": {1, 10, 0.1, 0}, "gpt-5-mini": {0.5, 2, 0.05, 0}}, Default: Price{2, 20, 0, 0}}
	tests := []struct {
		name string
		in   evidence.Usage
		want evidence.Usage
	}{
		{"exact", evidence.Usage{InputTokens: 1e6, OutputTokens: 1e5, CacheReadTokens: 1e6, TokensKnown: true, Model: "gpt-5"},
			evidence.Usage{InputTokens: 1e6, OutputTokens: 1e5, CacheReadTokens: 1e6, TokensKnown: true, Model: "gpt-5", CostUSD: 2.1, CostKnown: true, CostEstimated: true}},
		{"longest prefix", evidence.Usage{InputTokens: 2e6, TokensKnown: true, Model: "openai/gpt-5-mini-2026-01"},
			evidence.Usage{InputTokens: 2e6, TokensKnown: true, Model: "openai/gpt-5-mini-2026-01", CostUSD: 1, CostKnown: true, CostEstimated: true}},
		{"default", evidence.Usage{OutputTokens: 1e6, TokensKnown: true},
			evidence.Usage{OutputTokens: 1e6, TokensKnown: true, CostUSD: 20, CostKnown: true, CostEstimated: true}},
		{"reported cost kept", evidence.Usage{InputTokens: 5, TokensKnown: true, CostUSD: 0.5, CostKnown: true},
			evidence.Usage{InputTokens: 5, TokensKnown: true, CostUSD: 0.5, CostKnown: true}},
		{"unknown tokens stay unknown", evidence.Usage{Model: "gpt-5"}, evidence.Usage{Model: "gpt-5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Estimate(tt.in, table)); diff != "" {
				t.Errorf("Estimate() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDefaultPricesMatchReported checks the built-in Opus 4.7 entry against a
// real run whose CLI reported its cost (claude-json-1: 1.43967375 USD).
func TestDefaultPricesMatchReported(t *testing.T) {
	t.Parallel()
	u := evidence.Usage{InputTokens: 35, OutputTokens: 17055, CacheReadTokens: 1383485, CacheWriteTokens: 51421,
		TokensKnown: true, Model: "claude-opus-4-7[1m]"}
	got := Estimate(u, DefaultPrices()).CostUSD
	if d := got - 1.43967375; d > 1e-9 || d < -1e-9 {
		t.Errorf("estimated %v, the CLI reported 1.43967375", got)
	}
}

// TestEstimateOutcomeByModel prices each model a CLI names at its own rate
// (gemini's router and main model), not the whole run at one.
func TestEstimateOutcomeByModel(t *testing.T) {
	t.Parallel()
	table := Prices{Models: map[string]Price{"flash-lite": {1, 10, 0, 0}, "pro": {10, 100, 1, 0}}, Default: Price{1000, 1000, 0, 0}}
	out := Outcome{
		Usage:  evidence.Usage{InputTokens: 2e6, OutputTokens: 2e6, CacheReadTokens: 1e6, TokensKnown: true, Model: "auto"},
		Models: []ModelTokens{{Model: "flash-lite", Input: 1e6, Output: 1e6}, {Model: "pro", Input: 1e6, Output: 1e6, CacheRead: 1e6}},
	}
	got := EstimateOutcome(out, table)
	if got.CostUSD != 11+111 || !got.CostKnown || !got.CostEstimated {
		t.Errorf("EstimateOutcome() = %+v, want $122 estimated", got)
	}
	out.Usage.CostUSD, out.Usage.CostKnown = 0.5, true
	if got := EstimateOutcome(out, table); got.CostUSD != 0.5 || got.CostEstimated {
		t.Errorf("a reported cost was replaced: %+v", got)
	}
}
