package app

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/ledger"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestSpendCSV: the CSV of spend has a row per period and key (every day
// the ledger holds), then a row per task graph and period, its graph column
// set; a run of no graph has no graph row.
func TestSpendCSV(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC)
	claude := budget.Key{Provider: "claude", Account: "claude:aa", Model: "sonnet"}
	codex := budget.Key{Provider: "codex", Account: "codex:bb"}
	b := ledger.NewBook(time.UTC)
	iteration := func(id, graph string, at time.Time, k budget.Key, usd float64, estimated bool) {
		owner := ledger.Owner{PID: 1}
		b.Apply(ledger.Record{Kind: ledger.KindReserve, ID: id, At: at, Run: "/w " + id, Graph: graph, Key: k, USD: usd, Owner: &owner})
		b.Apply(ledger.Record{Kind: ledger.KindSettle, ID: id, At: at, Run: "/w " + id, Key: k,
			Charges: []ledger.Charge{{Key: k, USD: usd, Tokens: int64(usd * 1000), Estimated: estimated}}})
	}
	iteration("a#1", "/w tasks", now.Add(-time.Hour), claude, 0.5, false)
	iteration("b#1", "/w tasks", now.Add(-30*time.Minute), codex, 0.25, true)
	iteration("c#1", "/w other", now.Add(-48*time.Hour), claude, 1, false) // this week, not today
	iteration("d#1", "", now.Add(-10*time.Minute), claude, 0.125, false)   // a run of its own
	var out bytes.Buffer
	if err := spendCSV(&out, b.Report(nil, now, nil)); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", t.Name()+".golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("spend --format csv mismatch (-want +got):\n%s", diff)
	}
}
