package ledger

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/budget"
)

// TestReportDays: the report says what was spent each day the ledger holds,
// the latest first, in all and by key, known and estimated; a day is the
// book's time zone's.
func TestReportDays(t *testing.T) {
	t.Parallel()
	claude := budget.Key{Provider: "claude", Account: "claude:aa", Model: "sonnet"}
	codex := budget.Key{Provider: "codex", Account: "codex:bb"}
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	est := func(id string, at time.Time, k budget.Key, usd float64) Record {
		r := settle(id, at, k, usd)
		r.Charges[0].Estimated = true
		return r
	}
	tests := []struct {
		name string
		loc  *time.Location
		recs []Record
		want []DayReport
	}{
		{name: "nothing spent", loc: time.UTC},
		{
			name: "three days, the latest first",
			loc:  time.UTC,
			recs: []Record{
				settle("a", t0.AddDate(0, 0, -2), claude, 1),
				settle("b", t0, claude, 0.5),
				est("c", t0, codex, 0.25),
				settle("d", t0.AddDate(0, 0, -1), codex, 2),
				settle("d", t0.AddDate(0, 0, -1), codex, 2), // settled twice: counted once
			},
			want: []DayReport{
				{Name: "2026-11-25", Total: Sum{USD: 0.75, Estimated: 0.25, Tokens: 750, Iterations: 2}, Keys: []KeySum{
					{Key: claude, Sum: Sum{USD: 0.5, Tokens: 500, Iterations: 1}},
					{Key: codex, Sum: Sum{USD: 0.25, Estimated: 0.25, Tokens: 250, Iterations: 1}},
				}},
				{Name: "2026-11-24", Total: Sum{USD: 2, Tokens: 2000, Iterations: 1}, Keys: []KeySum{{Key: codex, Sum: Sum{USD: 2, Tokens: 2000, Iterations: 1}}}},
				{Name: "2026-11-23", Total: Sum{USD: 1, Tokens: 1000, Iterations: 1}, Keys: []KeySum{{Key: claude, Sum: Sum{USD: 1, Tokens: 1000, Iterations: 1}}}},
			},
		},
		{
			name: "the day of the book's zone",
			loc:  paris,
			recs: []Record{settle("a", time.Date(2026, 11, 24, 23, 30, 0, 0, time.UTC), claude, 1)}, // 00:30 in Paris
			want: []DayReport{{Name: "2026-11-25", Total: Sum{USD: 1, Tokens: 1000, Iterations: 1}, Keys: []KeySum{{Key: claude, Sum: Sum{USD: 1, Tokens: 1000, Iterations: 1}}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := bookOf(tt.loc, tt.recs)
			if diff := cmp.Diff(tt.want, b.Report(nil, t0, nil).Days); diff != "" {
				t.Errorf("days (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReportByGraph: the spend of a task's iterations sums under its task
// graph (named by its reservation), in each period; a run of its own under
// none.
func TestReportByGraph(t *testing.T) {
	t.Parallel()
	k := budget.Key{Provider: "claude", Account: "claude:aa"}
	owner := Owner{PID: 1}
	reserve := func(id, graph string, at time.Time) Record {
		return Record{Kind: KindReserve, ID: id, At: at, Run: "r", Graph: graph, Key: k, USD: 1, Owner: &owner}
	}
	tests := []struct {
		name       string
		recs       []Record
		day, month []GraphSum
	}{
		{name: "a run of its own", recs: []Record{reserve("a", "", t0), settle("a", t0, k, 1)}},
		{
			name: "two graphs, one last month",
			recs: []Record{
				reserve("a", "api", t0), settle("a", t0, k, 1),
				reserve("b", "api", t0.AddDate(0, 0, -1)), settle("b", t0.AddDate(0, 0, -1), k, 2),
				reserve("c", "docs", t0), settle("c", t0, k, 0.5),
				reserve("d", "docs", t0.AddDate(0, -1, 0)), settle("d", t0.AddDate(0, -1, 0), k, 4),
				reserve("e", "api", t0), // held, not spent
			},
			day:   []GraphSum{{Graph: "api", Sum: Sum{USD: 1, Tokens: 1000, Iterations: 1}}, {Graph: "docs", Sum: Sum{USD: 0.5, Tokens: 500, Iterations: 1}}},
			month: []GraphSum{{Graph: "api", Sum: Sum{USD: 3, Tokens: 3000, Iterations: 2}}, {Graph: "docs", Sum: Sum{USD: 0.5, Tokens: 500, Iterations: 1}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := bookOf(time.UTC, tt.recs)
			r := b.Report(nil, t0, nil)
			if diff := cmp.Diff(tt.day, r.Periods[0].Graphs); diff != "" {
				t.Errorf("today by graph (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.month, r.Periods[2].Graphs); diff != "" {
				t.Errorf("this month by graph (-want +got):\n%s", diff)
			}
		})
	}
}
