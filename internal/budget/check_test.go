package budget

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func known(tokens int64, usd float64, d time.Duration) Cost {
	return Cost{Tokens: tokens, TokensKnown: true, CostUSD: usd, CostKnown: true, Duration: d}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	m := time.Minute
	three := []Cost{known(100, 1, 10*m), known(200, 2, 10*m), known(300, 3, 10*m)} // means: 200 tokens, $2, 10m
	tests := []struct {
		name       string
		l          Limits
		per        []Cost
		wantHard   []Resource
		wantCannot []Resource
		wantSoft   []Resource
		wantUnchk  []Resource
		wantRem    Remaining
		reason     string // substring
	}{
		{name: "no limits", per: three, wantRem: Remaining{-1, -1, -1}},
		{name: "plenty left", l: Limits{MaxTokens: 10000, MaxCostUSD: 100, MaxDuration: 10 * time.Hour, MaxIterations: 10}, per: three,
			wantRem: Remaining{9400, 94, 9*time.Hour + 30*m}},
		{name: "cost crossed", l: Limits{MaxCostUSD: 6}, per: three, wantHard: []Resource{CostUSD},
			wantRem: Remaining{-1, 0, -1}, reason: "cost: $6.00 spent of $6.00"},
		{name: "iterations and the threshold are not spend", l: Limits{MaxIterations: 3, FailureThreshold: 1}, per: three,
			wantRem: Remaining{-1, -1, -1}},
		// $2.30 left < 1.2 × $2 = $2.40
		{name: "cannot afford cost", l: Limits{MaxCostUSD: 8.3}, per: three, wantCannot: []Resource{CostUSD}, wantSoft: nil,
			wantRem: Remaining{-1, 2.3000000000000007, -1}, reason: "an iteration takes about $2.40"},
		// $2.50 left ≥ $2.40, and 6/8.5 = 71 %: nothing to say
		{name: "just affordable", l: Limits{MaxCostUSD: 8.5}, per: three, wantRem: Remaining{-1, 2.5, -1}},
		// 230 tokens left < 240
		{name: "cannot afford tokens", l: Limits{MaxTokens: 830}, per: three, wantCannot: []Resource{Tokens},
			wantRem: Remaining{230, -1, -1}},
		// 11m left < 12m
		{name: "cannot afford time", l: Limits{MaxDuration: 41 * m}, per: three, wantCannot: []Resource{Duration},
			wantRem: Remaining{-1, -1, 11 * m}},
		// 600 of 740 = 81 %; the last iteration was small (mean 100 × 1.2 < 140 left)
		{name: "soft tokens", l: Limits{MaxTokens: 740}, per: []Cost{known(50, 0, 0), known(50, 0, 0), known(500, 0, 0),
			known(0, 0, 0), known(0, 0, 0), known(0, 0, 0)}, wantSoft: []Resource{Tokens},
			wantRem: Remaining{140, -1, -1}, reason: "tokens: 600 spent of 740 (81%)"},
		{name: "unknown cost is not zero", l: Limits{MaxCostUSD: 10}, per: []Cost{known(100, 1, m), {Tokens: 50, TokensKnown: true}},
			wantUnchk: []Resource{CostUSD}, wantRem: Remaining{-1, 9, -1}, reason: "cannot be predicted"},
		{name: "unknown but already crossed", l: Limits{MaxCostUSD: 1}, per: []Cost{known(100, 1.5, m), {}},
			wantHard: []Resource{CostUSD}, wantRem: Remaining{-1, 0, -1}},
		{name: "unknown tokens near the limit", l: Limits{MaxTokens: 100}, per: []Cost{known(90, 0, 0), {}},
			wantSoft: []Resource{Tokens}, wantUnchk: []Resource{Tokens}, wantRem: Remaining{10, -1, -1}},
		// 240 tokens left = 1.2 × 200: affordable; 600/840 = 71 %
		{name: "exactly affordable", l: Limits{MaxTokens: 840}, per: three, wantRem: Remaining{840 - 600, -1, -1}},
		// 80 of 100 tokens, the mean of 10 × 1.2 fits in what is left
		{name: "soft at exactly 80%", l: Limits{MaxTokens: 100}, per: []Cost{known(80, 0, 0), known(0, 0, 0), known(0, 0, 0),
			known(0, 0, 0), known(0, 0, 0), known(0, 0, 0), known(0, 0, 0), known(0, 0, 0)},
			wantSoft: []Resource{Tokens}, wantRem: Remaining{20, -1, -1}, reason: "tokens: 80 spent of 100 (80%)"},
		{name: "unknown at exactly 80%", l: Limits{MaxTokens: 100}, per: []Cost{known(80, 0, 0), {}},
			wantSoft: []Resource{Tokens}, wantUnchk: []Resource{Tokens}, wantRem: Remaining{20, -1, -1}},
		{name: "unknown under 80%", l: Limits{MaxTokens: 100}, per: []Cost{known(79, 0, 0), {}},
			wantUnchk: []Resource{Tokens}, wantRem: Remaining{21, -1, -1}},
		{name: "duration crossed", l: Limits{MaxDuration: 30 * m}, per: three, wantHard: []Resource{Duration},
			wantRem: Remaining{-1, -1, 0}, reason: "time: 30m0s spent of 30m0s"},
		{name: "tokens past the limit", l: Limits{MaxTokens: 500}, per: three, wantHard: []Resource{Tokens},
			wantRem: Remaining{0, -1, -1}, reason: "tokens: 600 spent of 500"},
		{name: "first iteration: nothing to predict", l: Limits{MaxCostUSD: 0.5}, wantRem: Remaining{-1, 0.5, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := Check(tt.l, Total(tt.per), tt.per)
			want := Verdict{Hard: tt.wantHard, CannotAfford: tt.wantCannot, Soft: tt.wantSoft, Unchecked: tt.wantUnchk, Remaining: tt.wantRem}
			got := v
			got.Reason = ""
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("Check() (-want +got):\n%s\nreason: %s", diff, v.Reason)
			}
			if !strings.Contains(v.Reason, tt.reason) {
				t.Errorf("Reason = %q, want it to contain %q", v.Reason, tt.reason)
			}
			if v.Stop() != (len(tt.wantHard)+len(tt.wantCannot) > 0) {
				t.Errorf("Stop() = %v", v.Stop())
			}
		})
	}
}

// Spend the totals do not know (an iteration a crash cut short, whose tokens
// or cost its transcript did not tell) cannot be predicted from, even when
// every recorded iteration's figure is known.
func TestCheckUnknownTotals(t *testing.T) {
	t.Parallel()
	per := []Cost{known(100, 1, time.Minute), known(100, 1, time.Minute)}
	s := Total(per)
	s.TokensKnown, s.CostKnown = false, false
	v := Check(Limits{MaxTokens: 1000, MaxCostUSD: 10}, s, per)
	if diff := cmp.Diff([]Resource{Tokens, CostUSD}, v.Unchecked); diff != "" || v.Stop() {
		t.Errorf("Unchecked (-want +got):\n%s\nverdict %+v", diff, v)
	}
}

func TestAgentLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    Remaining
		want Limits
	}{
		{"no limits", Unlimited(), Limits{}},
		{"what is left", Remaining{Tokens: 500, CostUSD: 1.5, Duration: time.Minute}, Limits{MaxTokens: 500, MaxCostUSD: 1.5}},
		{"nothing left still ends the agent", Remaining{Tokens: 0, CostUSD: 0, Duration: -1}, Limits{MaxTokens: 1, MaxCostUSD: 0.0001}},
		{"only cost limited", Remaining{Tokens: -1, CostUSD: 2, Duration: -1}, Limits{MaxCostUSD: 2}},
	}
	for _, tt := range tests {
		if got := tt.r.AgentLimits(); got != tt.want {
			t.Errorf("%s: AgentLimits() = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestWithin(t *testing.T) {
	t.Parallel()
	others := Spent{Tokens: 700, TokensKnown: true, CostUSD: 4, CostKnown: true}
	tests := []struct {
		name   string
		own    Limits
		shared Limits
		others Spent
		want   Limits
	}{
		{"no shared budget", Limits{MaxCostUSD: 3}, Limits{}, others, Limits{MaxCostUSD: 3}},
		{"what the others left is lower", Limits{MaxCostUSD: 3, MaxTokens: 1000}, Limits{MaxCostUSD: 5, MaxTokens: 1000}, others,
			Limits{MaxCostUSD: 1, MaxTokens: 300}},
		{"the own limit is lower", Limits{MaxCostUSD: 0.5}, Limits{MaxCostUSD: 5}, others, Limits{MaxCostUSD: 0.5}},
		{"no own limit", Limits{MaxIterations: 3}, Limits{MaxCostUSD: 5}, others, Limits{MaxIterations: 3, MaxCostUSD: 1}},
		{"used up keeps the smallest limit", Limits{}, Limits{MaxCostUSD: 3, MaxTokens: 500}, others, Limits{MaxCostUSD: 0.0001, MaxTokens: 1}},
		{"unknown spend of the others is not capped on", Limits{MaxCostUSD: 3}, Limits{MaxCostUSD: 5}, Spent{CostUSD: 4}, Limits{MaxCostUSD: 3}},
	}
	for _, tt := range tests {
		if got := tt.own.Within(tt.shared, tt.others); got != tt.want {
			t.Errorf("%s: Within() = %+v, want %+v", tt.name, got, tt.want)
		}
	}
	all := Spent{Tokens: 1000, TokensKnown: true, CostUSD: 5, CostKnown: true, Duration: time.Hour, Iterations: 4}
	own := Spent{Tokens: 300, TokensKnown: true, CostUSD: 1, CostKnown: true, Duration: 20 * time.Minute, Iterations: 1}
	if got, want := all.Minus(own), (Spent{Tokens: 700, TokensKnown: true, CostUSD: 4, CostKnown: true, Duration: 40 * time.Minute, Iterations: 3}); got != want {
		t.Errorf("Minus() = %+v, want %+v", got, want)
	}
	own.CostKnown = false
	if got := all.Minus(own); got.CostKnown || !got.TokensKnown {
		t.Errorf("Minus() = %+v: a cost is known only when both are", got)
	}
	own.CostKnown, own.TokensKnown = true, false
	if got := all.Minus(own); !got.CostKnown || got.TokensKnown {
		t.Errorf("Minus() = %+v: tokens are known only when both are", got)
	}
	// A run that spent nothing yet (its usage reported nothing) takes nothing
	// from what is known of the others.
	if got := all.Minus(Spent{}); got != all {
		t.Errorf("Minus(nothing) = %+v, want %+v", got, all)
	}
}

func TestPredict(t *testing.T) {
	t.Parallel()
	got := Predict([]Cost{
		{CostUSD: 1, CostKnown: true, Tokens: 100, TokensKnown: true},
		{CostUSD: 3, CostKnown: true},
		{CostUSD: 9}, // not known: left out, never taken as 0
	})
	if got.CostUSD != 2.4 || !got.CostKnown || got.Tokens != 120 || !got.TokensKnown {
		t.Errorf("Predict = %+v, want $2.4 and 120 tokens", got)
	}
	if p := Predict(nil); p.CostKnown || p.CostUSD != 0 || p.TokensKnown {
		t.Errorf("Predict(nil) = %+v, want nothing known", p)
	}
}

// A shared budget is exhausted once a hard limit is reached, and says which.
func TestExhausted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		l      Limits
		s      Spent
		want   bool
		reason string
	}{
		{"no limits", Limits{}, Spent{CostUSD: 100, CostKnown: true}, false, ""},
		{"under", Limits{MaxCostUSD: 5}, Spent{CostUSD: 4.99, CostKnown: true}, false, ""},
		{"reached", Limits{MaxCostUSD: 5}, Spent{CostUSD: 5, CostKnown: true}, true, "cost: $5.00 spent of $5.00"},
		{"tokens past", Limits{MaxTokens: 1000, MaxCostUSD: 5}, Spent{Tokens: 1200, TokensKnown: true, CostUSD: 1, CostKnown: true}, true,
			"tokens: 1,200 spent of 1,000"},
	} {
		got, reason := Exhausted(tc.l, tc.s)
		if got != tc.want || reason != tc.reason {
			t.Errorf("%s: Exhausted = %v, %q; want %v, %q", tc.name, got, reason, tc.want, tc.reason)
		}
	}
}
