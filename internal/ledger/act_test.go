package ledger

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/budget"
)

// A loop's first iteration (no iteration of its own settled) reserves margin
// × the mean of its provider's last settled iterations in the ledger, agent
// and reviewer together, whichever loop ran them; with none, the configured
// first_iteration_usd as it is.
func TestFirstCost(t *testing.T) {
	t.Parallel()
	claude := budget.Key{Provider: "claude", Account: "claude:aa"}
	codex := budget.Key{Provider: "codex", Account: "codex:bb"}
	reviewed := func(id string, agent, reviewer float64) Record {
		r := settle(id, t0, claude, agent)
		r.Charges = append(r.Charges, Charge{Key: budget.Key{Provider: "claude", Account: "claude:rev"}, USD: reviewer})
		return r
	}
	many := func(n int) []Record {
		var out []Record
		for i := range n {
			usd := 1.0 // the oldest 5 of 25 cost $1, the last 20 $0.10
			if i >= n-recentMax {
				usd = 0.1
			}
			out = append(out, settle(fmt.Sprint("m", i), t0, claude, usd))
		}
		return out
	}
	for _, tt := range []struct {
		name       string
		records    []Record
		first      float64
		want       float64
		fromLedger bool
	}{
		{name: "an empty ledger: the default", first: DefaultFirstUSD, want: DefaultFirstUSD},
		{name: "an empty ledger: first_iteration_usd", first: 0.05, want: 0.05},
		{name: "an older ledger workflow's reservation: nothing", first: 0, want: 0},
		{name: "the provider's mean × 1.2", records: []Record{settle("a", t0, claude, 0.04), settle("b", t0, claude, 0.06)}, first: DefaultFirstUSD, want: 0.06, fromLedger: true},
		{name: "the reviewer's charge is part of the iteration", records: []Record{reviewed("a", 0.0421, 0.03)}, first: DefaultFirstUSD, want: 1.2 * 0.0721, fromLedger: true},
		{name: "another provider's iterations do not count", records: []Record{settle("a", t0, codex, 2)}, first: 0.05, want: 0.05},
		{name: "the last 20 iterations", records: many(25), first: DefaultFirstUSD, want: 0.12, fromLedger: true},
		{name: "a settlement without charges is no iteration", records: []Record{{Kind: KindSettle, ID: "a", At: t0, Key: claude}}, first: 0.05, want: 0.05},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := NewBook(nil)
			for _, r := range tt.records {
				b.Apply(r)
			}
			got, from := b.FirstCost("claude", tt.first, 1.2)
			if math.Abs(got-tt.want) > 1e-9 || from != tt.fromLedger {
				t.Errorf("FirstCost = $%g (from the ledger: %v), want $%g (%v)", got, from, tt.want, tt.fromLedger)
			}
		})
	}
}

// With no mean to predict from, a first iteration reserves the configured
// first_iteration_usd, else a tenth of the tightest cost limit over its key,
// at most DefaultFirstUSD.
func TestFirstUSD(t *testing.T) {
	t.Parallel()
	claude := budget.Key{Provider: "claude", Account: "claude:aa"}
	for _, tt := range []struct {
		name       string
		caps       []Cap
		configured float64
		want       float64
	}{
		{name: "no caps: the default", want: DefaultFirstUSD},
		{name: "configured", caps: []Cap{{Period: Day, MaxCostUSD: 0.3}}, configured: 0.05, want: 0.05},
		{name: "configured above the cap's tenth", caps: []Cap{{Period: Day, MaxCostUSD: 0.3}}, configured: 2, want: 2},
		{name: "a tenth of a small cap", caps: []Cap{{Period: Day, MaxCostUSD: 0.3}}, want: 0.03},
		{name: "a large cap: the default", caps: []Cap{{Period: Day, MaxCostUSD: 20}}, want: DefaultFirstUSD},
		{name: "the tightest cap, a soft limit", caps: []Cap{{Period: Month, MaxCostUSD: 100}, {Period: Day, SoftCostUSD: 2, MaxCostUSD: 4}}, want: 0.2},
		{name: "a cap over another provider does not count", caps: []Cap{{Period: Day, Provider: "codex", MaxCostUSD: 0.3}}, want: DefaultFirstUSD},
		{name: "a token cap does not count", caps: []Cap{{Period: Day, MaxTokens: 1000}}, want: DefaultFirstUSD},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := FirstUSD(tt.caps, claude, tt.configured); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("FirstUSD = $%g, want $%g", got, tt.want)
			}
		})
	}
}

// Twenty fresh loops reserving at once under a $0.30 daily cap: each first
// reservation holds its prediction, so the cap grants only as many as it
// can hold; a refusal says where the figure came from. Before, a first
// reservation held $0 and all twenty were granted.
func TestFreshLoopsReserveTheirFirstIteration(t *testing.T) {
	t.Parallel()
	k := budget.Key{Provider: "claude", Account: "claude:aa"}
	day := []Cap{{Name: "day", Period: Day, MaxCostUSD: 0.30}}
	for _, tt := range []struct {
		name       string
		configured float64
		first      float64
	}{
		{name: "first_iteration_usd $0.0505", configured: 0.0505, first: 0.0505},
		{name: "a tenth of the cap", first: 0.03},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := NewBook(nil)
			granted := 0
			var refusal string
			for i := range 20 {
				r := Reservation{ID: fmt.Sprint("loop", i), Key: k, First: FirstUSD(day, k, tt.configured)}
				g, rec := b.Reserve(r, day, 1.2, t0, nil, Owner{PID: 1})
				if g.Verdict != Granted {
					refusal = g.Reason
					continue
				}
				granted++
				if math.Abs(rec.USD-tt.first) > 1e-12 {
					t.Errorf("loop %d held $%g, want $%g", i, rec.USD, tt.first)
				}
				b.Apply(*rec)
			}
			// As many as the cap holds (to a billionth of a dollar), no more.
			if n := float64(granted); n*tt.first > 0.30+1e-9 || (n+1)*tt.first <= 0.30-1e-9 {
				t.Errorf("%d of 20 granted at $%g each under $0.30", granted, tt.first)
			}
			if held, _ := b.Reserved(day[0], nil, ""); held > 0.30+1e-9 {
				t.Errorf("$%g held under a $0.30 cap", held)
			}
			if !strings.Contains(refusal, "the ledger holds no iteration of claude yet, so a first one reserves $0.0") {
				t.Errorf("refusal %q does not say where the first iteration's figure comes from", refusal)
			}
		})
	}
}
