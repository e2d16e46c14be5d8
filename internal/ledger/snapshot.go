package ledger

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
)

// Snapshot is a book as plain data: what a holder of the book that cannot
// keep every record (the Temporal engine's ledger workflow, which starts
// its history anew now and then) carries over, and rebuilds the book from
// with [Restore]. It carries what judging and reporting the periods that
// hold a given time need, not the records themselves.
type Snapshot struct {
	Zone     string               `json:"zone,omitempty"` // the periods' time zone ("" UTC)
	Open     []Held               `json:"open,omitempty"`
	Settled  map[string]time.Time `json:"settled,omitempty"`
	Sums     []PeriodKeySum       `json:"sums,omitempty"`
	Runs     []PeriodRunSum       `json:"runs,omitempty"`
	Graphs   []PeriodRunSum       `json:"graphs,omitempty"` // Run is the graph
	Approved []string             `json:"approved,omitempty"`
	Windows  []Window             `json:"windows,omitempty"`
	Recent   map[string][]float64 `json:"recent,omitempty"`
	Records  int                  `json:"records"`
}

// PeriodKeySum is what one key spent in one period ("day 2026-11-25").
type PeriodKeySum struct {
	Period string     `json:"period"`
	Key    budget.Key `json:"key"`
	Sum    Sum        `json:"sum"`
}

// PeriodRunSum is what one run spent in one period.
type PeriodRunSum struct {
	Period string `json:"period"`
	Run    string `json:"run"`
	Sum    Sum    `json:"sum"`
}

// Snapshot is the book as plain data, without what is over before since: the
// periods that ended before the one holding since, the reservations held
// from before it (their loops are long gone), the settlements made before it
// and the usage windows that reset before it.
func (b *Book) Snapshot(since time.Time) Snapshot {
	s := Snapshot{Settled: map[string]time.Time{}, Recent: map[string][]float64{}, Records: b.records}
	if b.loc != time.UTC {
		s.Zone = b.loc.String()
	}
	since = since.In(b.loc)
	current := func(name string) bool {
		p, of, ok := strings.Cut(name, " ")
		return ok && of >= Period(p).Of(since) // period names sort in time order
	}
	for _, o := range b.open {
		if !o.At.Before(since) {
			s.Open = append(s.Open, o)
		}
	}
	slices.SortFunc(s.Open, func(a, b Held) int { return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.ID, b.ID)) })
	for id, at := range b.settled {
		if !at.Before(since) {
			s.Settled[id] = at
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b.sums)) {
		if !current(name) {
			continue
		}
		m := b.sums[name]
		keys := slices.SortedFunc(maps.Keys(m), func(a, b budget.Key) int {
			return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Account, b.Account), cmp.Compare(a.Model, b.Model))
		})
		for _, k := range keys {
			s.Sums = append(s.Sums, PeriodKeySum{Period: name, Key: k, Sum: m[k]})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b.runs)) {
		if !current(name) {
			continue
		}
		for _, run := range slices.Sorted(maps.Keys(b.runs[name])) {
			s.Runs = append(s.Runs, PeriodRunSum{Period: name, Run: run, Sum: b.runs[name][run]})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b.graphs)) {
		if !current(name) {
			continue
		}
		for _, g := range slices.Sorted(maps.Keys(b.graphs[name])) {
			s.Graphs = append(s.Graphs, PeriodRunSum{Period: name, Run: g, Sum: b.graphs[name][g]})
		}
	}
	s.Approved = slices.Sorted(maps.Keys(b.approved))
	for _, k := range slices.SortedFunc(maps.Keys(b.windows), func(a, b budget.Key) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Account, b.Account))
	}) {
		if w := b.windows[k]; w.Until.After(since) {
			s.Windows = append(s.Windows, w)
		}
	}
	maps.Copy(s.Recent, b.recent)
	return s
}

// Restore is the book a snapshot was taken of, its periods in loc (nil: the
// snapshot's zone, UTC when it names none or one not known here).
func Restore(s Snapshot, loc *time.Location) *Book {
	if loc == nil && s.Zone != "" {
		loc, _ = time.LoadLocation(s.Zone)
	}
	b := NewBook(loc)
	for _, o := range s.Open {
		b.open[o.ID] = o
	}
	maps.Copy(b.settled, s.Settled)
	for _, ks := range s.Sums {
		put(b.sums, ks.Period, ks.Key, ks.Sum)
	}
	for _, rs := range s.Runs {
		put(b.runs, rs.Period, rs.Run, rs.Sum)
	}
	for _, gs := range s.Graphs {
		put(b.graphs, gs.Period, gs.Run, gs.Sum)
	}
	for _, a := range s.Approved {
		b.approved[a] = true
	}
	for _, w := range s.Windows {
		b.windows[w.Key] = w
	}
	maps.Copy(b.recent, s.Recent)
	b.records = s.Records
	return b
}

// put sets what k spent in period, making the period's map at need.
func put[K comparable](m map[string]map[K]Sum, period string, k K, s Sum) {
	if m[period] == nil {
		m[period] = map[K]Sum{}
	}
	m[period][k] = s
}
