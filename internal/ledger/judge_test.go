package ledger

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/budget"
)

var t0 = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

func settle(id string, at time.Time, k budget.Key, usd float64) Record {
	return Record{Kind: KindSettle, ID: id, At: at, Run: "r", Key: k, Charges: []Charge{{Key: k, USD: usd, Tokens: int64(usd * 1000)}}}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	claude := budget.Key{Provider: "claude", Account: "claude:aa", Model: "sonnet"}
	codex := budget.Key{Provider: "codex", Account: "codex:bb", Model: "o3"}
	day := Cap{Name: "day", Period: Day, MaxCostUSD: 5}
	soft := Cap{Name: "day-soft", Period: Day, SoftCostUSD: 3, MaxCostUSD: 5}
	claudeWeek := Cap{Name: "week/claude", Period: Week, Provider: "claude", MaxCostUSD: 2}
	tokens := Cap{Name: "tok", Period: Month, MaxTokens: 3000, SoftTokens: 2000}
	live := Owner{PID: 1}
	dead := Owner{PID: 2}
	alive := func(o Owner) bool { return o != dead }
	tests := []struct {
		name    string
		recs    []Record
		caps    []Cap
		k       budget.Key
		usd     float64
		want    Verdict
		cap     string
		leftUSD float64
		reason  string
	}{
		{name: "no caps", k: claude, usd: 1, want: Granted, leftUSD: -1},
		{name: "room left", recs: []Record{settle("a", t0, claude, 1)}, caps: []Cap{day}, k: claude, usd: 1, want: Granted, leftUSD: 4},
		{name: "would cross the hard limit", recs: []Record{settle("a", t0, claude, 4.5)}, caps: []Cap{day}, k: claude, usd: 0.6, want: Refused, cap: "day",
			reason: "cap day (all spend): $4.50 spent and $0.00 held by running iterations, of the limit $5.00 today; the next iteration needs about $0.60"},
		{name: "exactly at the limit fits", recs: []Record{settle("a", t0, claude, 4.5)}, caps: []Cap{day}, k: claude, usd: 0.5, want: Granted, leftUSD: 0.5},
		{name: "ten of $0.03 fit $0.30", recs: []Record{settle("a", t0, claude, 0.03), settle("b", t0, claude, 0.03), settle("c", t0, claude, 0.03),
			settle("d", t0, claude, 0.03), settle("e", t0, claude, 0.03), settle("f", t0, claude, 0.03), settle("g", t0, claude, 0.03),
			settle("h", t0, claude, 0.03), settle("i", t0, claude, 0.03)}, caps: []Cap{{Name: "c", Period: Day, MaxCostUSD: 0.3}}, k: claude, usd: 0.03, want: Granted, leftUSD: 0.03},
		{name: "spent up, nothing predicted", recs: []Record{settle("a", t0, claude, 5)}, caps: []Cap{day}, k: claude, usd: 0, want: Refused, cap: "day"},
		{name: "yesterday does not count", recs: []Record{settle("a", t0.Add(-24*time.Hour), claude, 5)}, caps: []Cap{day}, k: claude, usd: 1, want: Granted, leftUSD: 5},
		{name: "held by a live loop counts", recs: []Record{settle("a", t0, claude, 3), {Kind: KindReserve, ID: "b", At: t0, Key: codex, USD: 1.5, Owner: &live}},
			caps: []Cap{day}, k: claude, usd: 1, want: Refused, cap: "day"},
		{name: "held by a dead loop does not", recs: []Record{settle("a", t0, claude, 3), {Kind: KindReserve, ID: "b", At: t0, Key: codex, USD: 1.5, Owner: &dead}},
			caps: []Cap{day}, k: claude, usd: 1, want: Granted, leftUSD: 2},
		{name: "a settled reservation is not held", recs: []Record{{Kind: KindReserve, ID: "b", At: t0, Key: codex, USD: 4, Owner: &live}, settle("b", t0, codex, 1)},
			caps: []Cap{day}, k: claude, usd: 3, want: Granted, leftUSD: 4},
		{name: "soft limit parks", recs: []Record{settle("a", t0, claude, 2.5)}, caps: []Cap{soft}, k: claude, usd: 1, want: Parked, cap: "day-soft", leftUSD: 2.5},
		{name: "approved soft limit lets it pass", recs: []Record{settle("a", t0, claude, 2.5), {Kind: KindApprove, At: t0, Cap: "day-soft", Period: "2026-11-25"}},
			caps: []Cap{soft}, k: claude, usd: 1, want: Granted, leftUSD: 2.5},
		{name: "yesterday's approval does not", recs: []Record{settle("a", t0, claude, 2.5), {Kind: KindApprove, At: t0, Cap: "day-soft", Period: "2026-11-24"}},
			caps: []Cap{soft}, k: claude, usd: 1, want: Parked, cap: "day-soft", leftUSD: 2.5},
		{name: "a hard limit wins over a soft one", recs: []Record{settle("a", t0, claude, 2.5)}, caps: []Cap{soft, claudeWeek}, k: claude, usd: 1, want: Refused, cap: "week/claude"},
		{name: "another provider's cap does not apply", recs: []Record{settle("a", t0, claude, 1.9)}, caps: []Cap{claudeWeek}, k: codex, usd: 1, want: Granted, leftUSD: -1},
		{name: "tokens soft", recs: []Record{settle("a", t0, claude, 2)}, caps: []Cap{tokens}, k: claude, want: Parked, cap: "tok", leftUSD: -1},
		{name: "tokens hard", recs: []Record{settle("a", t0, claude, 3)}, caps: []Cap{tokens}, k: claude, want: Refused, cap: "tok"},
		{name: "a model's cap covers a key whose model is not known yet", recs: []Record{settle("a", t0, claude, 2)},
			caps: []Cap{{Name: "m", Period: Day, Model: "sonnet", MaxCostUSD: 2}}, k: budget.Key{Provider: "claude"}, usd: 0.1, want: Refused, cap: "m"},
		{name: "a model's cap leaves other models alone", recs: []Record{settle("a", t0, claude, 2)},
			caps: []Cap{{Name: "m", Period: Day, Model: "sonnet", MaxCostUSD: 2}}, k: codex, usd: 0.1, want: Granted, leftUSD: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := bookOf(time.UTC, tt.recs)
			g := b.Judge(tt.caps, tt.k, tt.usd, 0, t0.Add(time.Hour), alive, "")
			if g.Verdict != tt.want || g.Cap.Name != tt.cap {
				t.Fatalf("verdict %s by cap %q (%s), want %s by %q", g.Verdict, g.Cap.Name, g.Reason, tt.want, tt.cap)
			}
			if tt.want != Refused && math.Abs(g.LeftUSD-tt.leftUSD) > 1e-9 {
				t.Errorf("left $%g, want $%g", g.LeftUSD, tt.leftUSD)
			}
			if tt.reason != "" && g.Reason != tt.reason {
				t.Errorf("reason:\n%s\nwant:\n%s", g.Reason, tt.reason)
			}
		})
	}
}

// TestJudgeLeavesTheTightestHardCap: what a granted reservation is left to
// spend (the agent's live kill limit) is the least any matching hard cap
// leaves, in whatever order the caps come, for dollars and tokens alike.
func TestJudgeLeavesTheTightestHardCap(t *testing.T) {
	t.Parallel()
	k := budget.Key{Provider: "claude", Account: "claude:aa"}
	recs := []Record{settle("a", t0, k, 1)} // $1 and 1000 tokens today, this week and this month
	loose := Cap{Name: "month", Period: Month, MaxCostUSD: 50, MaxTokens: 90_000}
	tight := Cap{Name: "day", Period: Day, MaxCostUSD: 3, MaxTokens: 4000}
	usdOnly := Cap{Name: "week", Period: Week, MaxCostUSD: 2}
	tokOnly := Cap{Name: "tok", Period: Week, MaxTokens: 2500}
	other := Cap{Name: "codex", Period: Day, Provider: "codex", MaxCostUSD: 1.5, MaxTokens: 1500} // not this key's
	tests := []struct {
		name string
		caps []Cap
		usd  float64
		tok  int64
	}{
		{"loose first", []Cap{loose, tight}, 2, 3000},
		{"tight first", []Cap{tight, loose}, 2, 3000},
		{"dollars of one, tokens of another", []Cap{loose, usdOnly, tokOnly}, 1, 1500},
		{"tokens of one, dollars of another", []Cap{tokOnly, usdOnly, loose}, 1, 1500},
		{"a cap of another key does not bound it", []Cap{other, loose}, 49, 89_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := bookOf(time.UTC, recs).Judge(tt.caps, k, 0.5, 100, t0.Add(time.Hour), nil, "")
			if g.Verdict != Granted || math.Abs(g.LeftUSD-tt.usd) > 1e-9 || g.LeftTokens != tt.tok {
				t.Errorf("%s, left $%g and %d tokens; want granted, $%g and %d tokens left", g.Verdict, g.LeftUSD, g.LeftTokens, tt.usd, tt.tok)
			}
		})
	}
}

func TestBookSettlesOnce(t *testing.T) {
	t.Parallel()
	k := budget.Key{Provider: "claude"}
	b := NewBook(time.UTC)
	b.Apply(Record{Kind: KindReserve, ID: "x", At: t0, Key: k, USD: 1, Owner: &Owner{PID: 1}})
	b.Apply(settle("x", t0, k, 0.7))
	b.Apply(settle("x", t0, k, 0.7))                                                           // a recovery settling it again
	b.Apply(Record{Kind: KindReserve, ID: "x", At: t0, Key: k, USD: 1, Owner: &Owner{PID: 1}}) // a late reserve line
	s := b.Spent(Cap{Period: Day}, t0)
	if diff := cmp.Diff(Sum{USD: 0.7, Tokens: 700, Iterations: 1}, s); diff != "" {
		t.Errorf("spent (-want +got):\n%s", diff)
	}
	if h := b.OpenReservations(nil); len(h) != 0 {
		t.Errorf("held %+v, want none", h)
	}
	if p, ok := b.FirstCost("claude", DefaultFirstUSD, 1); p != 0.7 || !ok {
		t.Errorf("first cost $%g (from the ledger: %v), want the settled $0.70", p, ok)
	}
}

func TestPeriods(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) // ISO week 1 of 2026
	for p, want := range map[Period]string{Day: "2026-01-01", Week: "2026-W01", Month: "2026-01"} {
		if got := p.Of(at); got != want {
			t.Errorf("%s of %v = %s, want %s", p, at, got, want)
		}
	}
	if got := Week.Of(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)); got != "2026-W53" {
		t.Errorf("week of 2027-01-01 = %s, want 2026-W53", got)
	}
}

func TestCapValidate(t *testing.T) {
	t.Parallel()
	err := Cap{Period: "year", SoftCostUSD: 5, MaxCostUSD: 3}.Validate()
	for _, want := range []string{`period "year" is not one of day, week, month`, "soft_cost_usd 5 is above max_cost_usd 3"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to say %q", err, want)
		}
	}
	if err := (Cap{Period: Day}).Validate(); err == nil || !strings.Contains(err.Error(), "no limit") {
		t.Errorf("a cap without a limit: %v", err)
	}
	if err := (Cap{Period: Week, MaxCostUSD: 1}).Validate(); err != nil {
		t.Errorf("a valid cap: %v", err)
	}
	if n := (Cap{Period: Month, Provider: "claude", Model: "o3"}).DefaultName(); n != "month/claude/model=o3" {
		t.Errorf("name %q", n)
	}
}

func TestRoute(t *testing.T) {
	t.Parallel()
	claude := budget.Key{Provider: "claude", Account: "claude:aa", Model: "sonnet"}
	claude2 := budget.Key{Provider: "claude", Account: "claude:aa", Model: "opus"} // the same account
	codex := budget.Key{Provider: "codex", Account: "codex:bb"}
	gemini := budget.Key{Provider: "gemini", Account: "gemini:cc"}
	window := func(k budget.Key, until time.Time) Record {
		return Record{Kind: KindWindow, At: t0, Key: k, Until: until, Reason: "limit"}
	}
	claudeW := Window{Key: budget.Key{Provider: "claude", Account: "claude:aa"}, Until: t0.Add(time.Hour), Reason: "limit"}
	tests := []struct {
		name string
		recs []Record
		keys []budget.Key
		i    int
		w    Window
		free bool
	}{
		{name: "no keys", free: true},
		{name: "no window", keys: []budget.Key{claude, codex}, free: true},
		{name: "a window of another account", recs: []Record{window(codex, t0.Add(time.Hour))}, keys: []budget.Key{claude, codex}, free: true},
		{name: "moves to the first free fallback", recs: []Record{window(claude, t0.Add(time.Hour))}, keys: []budget.Key{claude, codex, gemini}, i: 1, w: claudeW, free: true},
		{name: "passes a fallback on the same account", recs: []Record{window(claude, t0.Add(time.Hour))}, keys: []budget.Key{claude, claude2, gemini}, i: 2, w: claudeW, free: true},
		{name: "passes a fallback in its own window", recs: []Record{window(claude, t0.Add(time.Hour)), window(codex, t0.Add(2*time.Hour))}, keys: []budget.Key{claude, codex, gemini}, i: 2, w: claudeW, free: true},
		{name: "none free: waits for the first's reset", recs: []Record{window(claude, t0.Add(time.Hour)), window(codex, t0.Add(2*time.Hour))}, keys: []budget.Key{claude, codex}, w: claudeW},
		{name: "no fallback: waits", recs: []Record{window(claude, t0.Add(time.Hour))}, keys: []budget.Key{claude}, w: claudeW},
		{name: "after the reset: back", recs: []Record{window(claude, t0.Add(-time.Second))}, keys: []budget.Key{claude, codex}, free: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := bookOf(time.UTC, tt.recs)
			i, w, free := b.Route(tt.keys, t0)
			if i != tt.i || free != tt.free || !w.Until.Equal(tt.w.Until) || w.Key != tt.w.Key {
				t.Errorf("Route() = %d, %+v, %v; want %d, %+v, %v", i, w, free, tt.i, tt.w, tt.free)
			}
		})
	}
}

// bookOf is a book in loc with recs applied in order.
func bookOf(loc *time.Location, recs []Record) *Book {
	b := NewBook(loc)
	for _, r := range recs {
		b.Apply(r)
	}
	return b
}
