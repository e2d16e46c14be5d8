package ledger

import (
	"slices"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
)

// Book is the ledger folded into totals: what was spent per period and key,
// the reservations still open, the approvals and the usage windows. It is
// pure: records go in through Apply, questions are answered from memory.
type Book struct {
	loc      *time.Location
	open     map[string]Held
	settled  map[string]time.Time          // reservation → when it was settled
	sums     map[string]map[budget.Key]Sum // "day 2026-11-25" → key → what was spent
	approved map[string]bool               // cap name + " " + period name
	windows  map[budget.Key]Window         // by provider and account
	recent   map[string][]float64          // provider → the last settled iterations' cost, for a first reservation
	runs     map[string]map[string]Sum     // period name → run → what it spent
	graphs   map[string]map[string]Sum     // period name → task graph → what its tasks spent
	records  int
}

// Held is a reservation not settled yet.
type Held struct {
	ID     string     `json:"id"`
	Run    string     `json:"run,omitempty"`
	Graph  string     `json:"graph,omitempty"`
	Key    budget.Key `json:"key"`
	USD    float64    `json:"usd"`
	Tokens int64      `json:"tokens"`
	Owner  Owner      `json:"owner"`
	At     time.Time  `json:"at"`
}

// Sum is what was spent under one key in a period.
type Sum struct {
	USD        float64 `json:"usd"`
	Estimated  float64 `json:"estimated_usd,omitempty"` // the part of USD the agents did not report
	Tokens     int64   `json:"tokens"`
	Iterations int     `json:"iterations"`
}

func (s Sum) add(c Charge, iteration bool) Sum {
	s.USD += c.USD
	if c.Estimated {
		s.Estimated += c.USD
	}
	s.Tokens += c.Tokens
	if iteration {
		s.Iterations++
	}
	return s
}

// Window is an account's usage limit, until its reset.
type Window struct {
	Key    budget.Key `json:"key"`
	Until  time.Time  `json:"until"`
	Reason string     `json:"reason,omitempty"`
}

// recentMax is how many settled iterations per provider the first
// reservation's prediction is taken from.
const recentMax = 20

// NewBook is an empty book whose periods are in loc (nil: UTC).
func NewBook(loc *time.Location) *Book {
	if loc == nil {
		loc = time.UTC
	}
	return &Book{loc: loc, open: map[string]Held{}, settled: map[string]time.Time{}, sums: map[string]map[budget.Key]Sum{},
		approved: map[string]bool{}, windows: map[budget.Key]Window{}, recent: map[string][]float64{}, runs: map[string]map[string]Sum{}, graphs: map[string]map[string]Sum{}}
}

func periodName(p Period, t time.Time) string { return string(p) + " " + p.Of(t) }

// Apply folds one record into the book. A reservation settled already, or a
// settle for one settled before, changes nothing: each iteration is counted
// once, however often it is settled (a crash's recovery settles again).
func (b *Book) Apply(r Record) {
	b.records++
	switch r.Kind {
	case KindReserve:
		if b.IsSettled(r.ID) {
			return
		}
		o := Held{ID: r.ID, Run: r.Run, Graph: r.Graph, Key: r.Key, USD: r.USD, Tokens: r.Tokens, At: r.At}
		if r.Owner != nil {
			o.Owner = *r.Owner
		}
		b.open[r.ID] = o
	case KindSettle:
		if b.IsSettled(r.ID) {
			return
		}
		b.settled[r.ID] = r.At
		graph := b.open[r.ID].Graph
		delete(b.open, r.ID)
		t := r.At.In(b.loc)
		var total float64
		for i, c := range r.Charges {
			for _, p := range []Period{Day, Week, Month} {
				name := periodName(p, t)
				m := b.sums[name]
				if m == nil {
					m = map[budget.Key]Sum{}
					b.sums[name] = m
				}
				m[c.Key] = m[c.Key].add(c, i == 0)
				if r.Run != "" {
					rm := b.runs[name]
					if rm == nil {
						rm = map[string]Sum{}
						b.runs[name] = rm
					}
					rm[r.Run] = rm[r.Run].add(c, i == 0)
				}
				if graph != "" {
					gm := b.graphs[name]
					if gm == nil {
						gm = map[string]Sum{}
						b.graphs[name] = gm
					}
					gm[graph] = gm[graph].add(c, i == 0)
				}
			}
			total += c.USD
		}
		if len(r.Charges) > 0 && r.Provider != "" {
			rs := append(b.recent[r.Provider], total)
			if len(rs) > recentMax {
				rs = rs[len(rs)-recentMax:]
			}
			b.recent[r.Provider] = rs
		}
	case KindApprove:
		b.approved[r.Cap+" "+r.Period] = true
	case KindWindow:
		k := budget.Key{Provider: r.Provider, Account: r.Account}
		if w, ok := b.windows[k]; !ok || r.Until.After(w.Until) {
			b.windows[k] = Window{Key: k, Until: r.Until, Reason: r.Reason}
		}
	}
}

// Records is how many records the book folded.
func (b *Book) Records() int { return b.records }

// Spent is what every key c matches spent in c's period holding now.
func (b *Book) Spent(c Cap, now time.Time) Sum {
	var s Sum
	for k, v := range b.sums[periodName(c.Period, now.In(b.loc))] {
		if c.Matches(k) {
			s.USD += v.USD
			s.Estimated += v.Estimated
			s.Tokens += v.Tokens
			s.Iterations += v.Iterations
		}
	}
	return s
}

// Reserved is what the open reservations under c hold, of owners alive
// says are still running (nil: all), leaving out the reservation skip.
func (b *Book) Reserved(c Cap, alive func(Owner) bool, skip string) (usd float64, tokens int64) {
	for id, o := range b.open {
		if id == skip || !c.Matches(o.Key) || (alive != nil && !alive(o.Owner)) {
			continue
		}
		usd += o.USD
		tokens += o.Tokens
	}
	return usd, tokens
}

// OpenReservations are the reservations not settled, oldest first, with
// whether alive (nil: all) says their process still runs.
func (b *Book) OpenReservations(alive func(Owner) bool) []Held {
	var out []Held
	for _, o := range b.open {
		if alive == nil || alive(o.Owner) {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b Held) int { return a.At.Compare(b.At) })
	return out
}

// Approved reports whether a person approved cap c past its soft limit in
// the period holding now.
func (b *Book) Approved(c Cap, now time.Time) bool {
	return b.approved[c.Name+" "+c.Period.Of(now.In(b.loc))]
}

// FirstCost is what an iteration of a loop that has settled none of its own
// yet reserves: margin × the mean of the last settled iterations (agent,
// fallback and reviewer) of provider's agents in the ledger, whichever loop
// ran them; with none, first (budgets: first_iteration_usd, else
// [DefaultFirstUSD]), as it is. fromLedger says which it is.
func (b *Book) FirstCost(provider string, first, margin float64) (usd float64, fromLedger bool) {
	rs := b.recent[provider]
	if len(rs) == 0 {
		return first, false
	}
	var sum float64
	for _, f := range rs {
		sum += f
	}
	return margin * sum / float64(len(rs)), true
}

// WindowOf is the usage window of k's account open at now, if any.
func (b *Book) WindowOf(k budget.Key, now time.Time) (Window, bool) {
	w, ok := b.windows[budget.Key{Provider: k.Provider, Account: k.Account}]
	return w, ok && w.Until.After(now)
}

// Route is which of keys a loop's next iteration runs under, told by the
// usage windows open at now: keys are the key of the agent it asks for, then
// those of the agents it may move to instead (its fallbacks), in order; it
// runs under the first whose account is not at its usage limit. With i > 0,
// w is the window it moves around (keys[0]'s); with none free, free is false
// and the loop waits for w's reset. One rule for every engine: the local
// engine asks it of the file ledger's book, the Temporal engine's ledger
// workflow of its own.
func (b *Book) Route(keys []budget.Key, now time.Time) (i int, w Window, free bool) {
	if len(keys) == 0 {
		return 0, Window{}, true
	}
	w, in := b.WindowOf(keys[0], now)
	if !in {
		return 0, Window{}, true
	}
	for i, k := range keys[1:] {
		if _, in := b.WindowOf(k, now); !in {
			return i + 1, w, true
		}
	}
	return 0, w, false
}

// Windows are the usage windows open at now.
func (b *Book) Windows(now time.Time) []Window {
	var out []Window
	for _, w := range b.windows {
		if w.Until.After(now) {
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(a, b Window) int { return a.Until.Compare(b.Until) })
	return out
}

// ByKey is what each key spent in period p holding now.
func (b *Book) ByKey(p Period, now time.Time) map[budget.Key]Sum {
	return b.sums[periodName(p, now.In(b.loc))]
}

// ByGraph is what the tasks of each task graph spent in period p holding now.
func (b *Book) ByGraph(p Period, now time.Time) map[string]Sum {
	return b.graphs[periodName(p, now.In(b.loc))]
}

// ByRun is what each run spent in period p holding now.
func (b *Book) ByRun(p Period, now time.Time) map[string]Sum {
	return b.runs[periodName(p, now.In(b.loc))]
}
