package ledger

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/budget"
)

// TestSnapshotRestoresTheBook: a book restored from its snapshot (through
// JSON, as a workflow carries it) judges and reports as the book did, for the
// periods holding since and after; what was over before is left out.
func TestSnapshotRestoresTheBook(t *testing.T) {
	t.Parallel()
	claude := budget.Key{Provider: "claude", Account: "claude:aa", Model: "sonnet"}
	codex := budget.Key{Provider: "codex", Account: "codex:bb"}
	old := t0.AddDate(0, -2, 0)
	live := Owner{Host: "temporal", PID: 1}
	gone := Owner{Host: "temporal", PID: 2}
	// The original book is asked without the stale reservation, which the
	// snapshot leaves out (held from before since).
	alive := func(o Owner) bool { return o != gone }
	recs := []Record{
		settle("old", old, claude, 9),
		{Kind: KindReserve, ID: "stale", At: old, Key: codex, USD: 7, Owner: &gone},
		settle("a", t0.Add(-48*time.Hour), claude, 1),
		settle("b", t0, codex, 0.5),
		{Kind: KindReserve, ID: "c", At: t0, Run: "r2", Key: claude, USD: 0.4, Owner: &live},
		{Kind: KindReserve, ID: "g", At: t0, Run: "r3", Graph: "api", Key: claude, USD: 0.4, Owner: &live},
		settle("g", t0, claude, 0.3),
		{Kind: KindApprove, At: t0, Cap: "day-soft", Period: "2026-11-25"},
		{Kind: KindWindow, At: t0, Key: budget.Key{Provider: "claude", Account: "claude:aa"}, Until: t0.Add(time.Hour), Reason: "usage limit"},
		{Kind: KindWindow, At: old, Key: budget.Key{Provider: "codex", Account: "codex:bb"}, Until: old.Add(time.Hour)},
	}
	b := bookOf(time.UTC, recs)
	since := t0.AddDate(0, -1, -7)
	data, err := json.Marshal(b.Snapshot(since))
	if err != nil {
		t.Fatal(err)
	}
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	got := Restore(s, nil)
	caps := []Cap{{Name: "day-soft", Period: Day, SoftCostUSD: 1, MaxCostUSD: 3}, {Name: "month", Period: Month, MaxCostUSD: 4}}
	was, now := b.Report(caps, t0, alive), got.Report(caps, t0, nil)
	// The day two months back is over before since: left out.
	if n := len(was.Days); n != 3 || was.Days[n-1].Name != old.Format(time.DateOnly) {
		t.Fatalf("the book's days: %+v, want three, the last two months back", was.Days)
	}
	was.Days = was.Days[:len(was.Days)-1]
	if diff := cmp.Diff(was, now); diff != "" {
		t.Errorf("the restored book reports otherwise (-was +restored):\n%s", diff)
	}
	for _, usd := range []float64{0.1, 1, 3} {
		if w, g := b.Judge(caps, claude, usd, 0, t0, alive, ""), got.Judge(caps, claude, usd, 0, t0, nil, ""); w != g {
			t.Errorf("judge %g: the book says %+v, the restored one %+v", usd, w, g)
		}
	}
	if !got.IsSettled("a") || got.IsSettled("old") {
		t.Errorf("settled a %v (want true), old %v (want false: settled before since)", got.IsSettled("a"), got.IsSettled("old"))
	}
	if h := got.OpenReservations(nil); len(h) != 1 || h[0].ID != "c" {
		t.Errorf("held %+v, want only c (stale was held from before since)", h)
	}
	if n := len(got.ByKey(Month, old)); n != 0 {
		t.Errorf("the month two months back has %d keys, want none", n)
	}
	if g := now.Periods[2].Graphs; len(g) != 1 || g[0].Graph != "api" || g[0].USD != 0.3 {
		t.Errorf("the restored month by graph: %+v, want api's $0.30", g)
	}
	if got.Records() != len(recs) {
		t.Errorf("records %d, want %d", got.Records(), len(recs))
	}
}
