package ledger

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
)

// Report is the ledger as `agentloop spend` shows it: what was spent in the
// day, week and month holding now, by key and by run; where each cap stands;
// the reservations held by running iterations; the usage windows open.
type Report struct {
	At      time.Time      `json:"at"`
	Periods []PeriodReport `json:"periods"`
	// Days is what was spent each day the ledger holds, the latest first.
	Days    []DayReport `json:"days"`
	Caps    []CapReport `json:"caps"`
	Held    []Held      `json:"held"`
	Windows []Window    `json:"windows"`
}

// PeriodReport is what was spent in one period.
type PeriodReport struct {
	Period Period     `json:"period"`
	Name   string     `json:"name"` // "2026-11-25"
	Total  Sum        `json:"total"`
	Keys   []KeySum   `json:"by_key"`
	Runs   []RunSum   `json:"by_run"`
	Graphs []GraphSum `json:"by_graph"`
}

// GraphSum is what the tasks of one task graph spent.
type GraphSum struct {
	Graph string `json:"graph"`
	Sum
}

// DayReport is what was spent in one day, by key.
type DayReport struct {
	Name  string   `json:"name"` // "2026-11-25"
	Total Sum      `json:"total"`
	Keys  []KeySum `json:"by_key"`
}

// KeySum is what one provider, account and model spent.
type KeySum struct {
	budget.Key
	Sum
}

// RunSum is what one run spent.
type RunSum struct {
	Run string `json:"run"`
	Sum
}

// CapReport is where one cap stands.
type CapReport struct {
	Cap
	PeriodName string  `json:"period_name"`
	Spent      Sum     `json:"spent"`
	HeldUSD    float64 `json:"held_usd"`
	HeldTokens int64   `json:"held_tokens"`
	// LeftUSD and LeftTokens are what is left under the hard limit, once
	// what is held is counted (-1: no hard limit of that kind).
	LeftUSD    float64 `json:"left_usd"`
	LeftTokens int64   `json:"left_tokens"`
	Approved   bool    `json:"approved,omitempty"` // past its soft limit by a person's leave, this period
	// State is "ok", "parked" (at its soft limit, not approved: new
	// iterations wait) or "stopped" (at its hard limit).
	State string `json:"state"`
}

// Report is the book at now under caps; alive says which reservations'
// processes still run (nil: all).
func (b *Book) Report(caps []Cap, now time.Time, alive func(Owner) bool) Report {
	r := Report{At: now, Held: b.OpenReservations(alive), Windows: b.Windows(now)}
	for _, p := range []Period{Day, Week, Month} {
		pr := PeriodReport{Period: p, Name: p.Of(now.In(b.loc))}
		pr.Total, pr.Keys = keySums(b.ByKey(p, now))
		for run, s := range b.ByRun(p, now) {
			pr.Runs = append(pr.Runs, RunSum{Run: run, Sum: s})
		}
		slices.SortFunc(pr.Runs, func(a, b RunSum) int { return cmp.Compare(a.Run, b.Run) })
		for g, s := range b.ByGraph(p, now) {
			pr.Graphs = append(pr.Graphs, GraphSum{Graph: g, Sum: s})
		}
		slices.SortFunc(pr.Graphs, func(a, b GraphSum) int { return cmp.Compare(a.Graph, b.Graph) })
		r.Periods = append(r.Periods, pr)
	}
	for name, m := range b.sums {
		if day, ok := strings.CutPrefix(name, string(Day)+" "); ok {
			dr := DayReport{Name: day}
			dr.Total, dr.Keys = keySums(m)
			r.Days = append(r.Days, dr)
		}
	}
	slices.SortFunc(r.Days, func(a, b DayReport) int { return cmp.Compare(b.Name, a.Name) })
	for _, c := range caps {
		cr := CapReport{Cap: c, PeriodName: c.Period.Of(now.In(b.loc)), Spent: b.Spent(c, now), Approved: b.Approved(c, now), LeftUSD: -1, LeftTokens: -1, State: "ok"}
		cr.HeldUSD, cr.HeldTokens = b.Reserved(c, alive, "")
		usd, tok := cr.Spent.USD+cr.HeldUSD, cr.Spent.Tokens+cr.HeldTokens
		if c.MaxCostUSD > 0 {
			cr.LeftUSD = math.Max(c.MaxCostUSD-usd, 0)
		}
		if c.MaxTokens > 0 {
			cr.LeftTokens = max(c.MaxTokens-tok, 0)
		}
		switch {
		case (c.MaxCostUSD > 0 && usd >= c.MaxCostUSD) || (c.MaxTokens > 0 && tok >= c.MaxTokens):
			cr.State = "stopped"
		case !cr.Approved && ((c.SoftCostUSD > 0 && usd >= c.SoftCostUSD) || (c.SoftTokens > 0 && tok >= c.SoftTokens)):
			cr.State = "parked"
		}
		r.Caps = append(r.Caps, cr)
	}
	return r
}

// keySums is what the keys of m spent, in all and key by key (in order).
func keySums(m map[budget.Key]Sum) (total Sum, keys []KeySum) {
	for k, s := range m {
		keys = append(keys, KeySum{Key: k, Sum: s})
		total.USD += s.USD
		total.Estimated += s.Estimated
		total.Tokens += s.Tokens
		total.Iterations += s.Iterations
	}
	slices.SortFunc(keys, func(a, b KeySum) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Account, b.Account), cmp.Compare(a.Model, b.Model))
	})
	return total, keys
}
