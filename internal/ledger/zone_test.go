package ledger

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/testenv"
)

// zone loads a time zone, skipping the test when the machine has no zone data.
func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	return loc
}

// TestPeriodsOfTheBooksZone: a cap's day, week and month are the book's
// time zone's, for what was spent, for the period a verdict names and for
// an approval, also where the UTC day, week or month is another.
func TestPeriodsOfTheBooksZone(t *testing.T) {
	t.Parallel()
	la := zone(t, "America/Los_Angeles") // UTC−8 in November
	nz := zone(t, "Pacific/Auckland")    // UTC+13 in November
	k := budget.Key{Provider: "claude", Account: "claude:aa"}
	utc := func(s string) time.Time {
		at, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	day := Cap{Name: "day", Period: Day, MaxCostUSD: 5}
	soft := Cap{Name: "soft", Period: Day, SoftCostUSD: 3, MaxCostUSD: 10}
	tests := []struct {
		name   string
		loc    *time.Location
		recs   []Record
		cap    Cap
		now    string
		want   Verdict
		period string
		spent  float64
	}{
		{name: "a local day over two UTC days", loc: la, recs: []Record{settle("a", utc("2026-11-24T20:00:00Z"), k, 4.5)}, // 12:00 PST
			cap: day, now: "2026-11-25T03:00:00Z", want: Refused, period: "2026-11-24", spent: 4.5}, // 19:00 PST, the same day
		{name: "two local days in one UTC day", loc: la, recs: []Record{settle("a", utc("2026-11-25T07:00:00Z"), k, 4.5)}, // 23:00 PST
			cap: day, now: "2026-11-25T09:00:00Z", want: Granted, period: "2026-11-25", spent: 0}, // 01:00 PST, the next day
		{name: "east of UTC: the local day starts before the UTC one", loc: nz, recs: []Record{settle("a", utc("2026-11-24T11:30:00Z"), k, 4.5)}, // 00:30 NZDT on the 25th
			cap: day, now: "2026-11-24T10:30:00Z", want: Granted, period: "2026-11-24", spent: 0}, // 23:30 NZDT on the 24th
		{name: "a local week over two UTC weeks", loc: nz, recs: []Record{settle("a", utc("2026-11-22T12:00:00Z"), k, 4.5)}, // Monday 01:00 NZDT, a Sunday in UTC
			cap: Cap{Name: "week", Period: Week, MaxCostUSD: 5}, now: "2026-11-23T12:00:00Z", want: Refused, period: "2026-W48", spent: 4.5},
		{name: "a local month over two UTC months", loc: la, recs: []Record{settle("a", utc("2026-11-30T20:00:00Z"), k, 4.5)},
			cap: Cap{Name: "month", Period: Month, MaxCostUSD: 5}, now: "2026-12-01T03:00:00Z", want: Refused, period: "2026-11", spent: 4.5}, // still November in Los Angeles
		{name: "an approval of the local day", loc: la, recs: []Record{settle("a", utc("2026-11-24T20:00:00Z"), k, 2.5),
			{Kind: KindApprove, At: utc("2026-11-25T02:00:00Z"), Cap: "soft", Period: "2026-11-24"}},
			cap: soft, now: "2026-11-25T03:00:00Z", want: Granted, period: "2026-11-24", spent: 2.5},
		{name: "an approval of the UTC day does not count", loc: la, recs: []Record{settle("a", utc("2026-11-24T20:00:00Z"), k, 2.5),
			{Kind: KindApprove, At: utc("2026-11-25T02:00:00Z"), Cap: "soft", Period: "2026-11-25"}},
			cap: soft, now: "2026-11-25T03:00:00Z", want: Parked, period: "2026-11-24", spent: 2.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := bookOf(tt.loc, tt.recs)
			snap, err := json.Marshal(b.Snapshot(utc("2026-11-01T00:00:00Z")))
			if err != nil {
				t.Fatal(err)
			}
			var s Snapshot
			if err := json.Unmarshal(snap, &s); err != nil {
				t.Fatal(err)
			}
			for _, bk := range []struct {
				name string
				b    *Book
			}{{"book", b}, {"restored from its snapshot", Restore(s, nil)}} {
				now := utc(tt.now)
				if got := bk.b.Spent(tt.cap, now).USD; math.Abs(got-tt.spent) > 1e-9 {
					t.Errorf("%s: spent $%g in the cap's period, want $%g", bk.name, got, tt.spent)
				}
				g := bk.b.Judge([]Cap{tt.cap}, k, 1, 0, now, nil, "")
				if g.Verdict != tt.want || (g.Verdict != Granted && g.Period != tt.period) {
					t.Errorf("%s: %s for the period %q (%s), want %s for %q", bk.name, g.Verdict, g.Period, g.Reason, tt.want, tt.period)
				}
				if cr := bk.b.Report([]Cap{tt.cap}, now, nil).Caps[0]; cr.PeriodName != tt.period {
					t.Errorf("%s: the report names the period %q, want %q", bk.name, cr.PeriodName, tt.period)
				}
			}
		})
	}
}

// TestOpenTakesTheMachinesZone: a ledger opened without a zone (as a run
// and agentloop spend open it) has the periods of the machine's time zone
// (TZ), not UTC's: run in a process of its own in Los Angeles.
func TestOpenTakesTheMachinesZone(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("on Windows Go reads the machine's zone from the system, not from TZ, which this test sets")
	}
	zone(t, "America/Los_Angeles")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperZone$", "-test.v")
	cmd.Env = append(os.Environ(), "TZ=America/Los_Angeles", "LEDGER_ZONE_HELPER="+filepath.Join(t.TempDir(), FileName), "GORACE="+testenv.GORACE())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestHelperZone") {
		t.Errorf("in Los Angeles: %v\n%s", err, out)
	}
}

func TestHelperZone(t *testing.T) {
	path := os.Getenv("LEDGER_ZONE_HELPER")
	if path == "" {
		t.Skip("a helper process of TestOpenTakesTheMachinesZone")
	}
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	k := budget.Key{Provider: "claude"}
	l.Now = func() time.Time { return time.Date(2026, 11, 24, 20, 0, 0, 0, time.UTC) } // 12:00 PST
	if err := l.Settle("a", "r", k, []Charge{{Key: k, USD: 4.5}}); err != nil {
		t.Fatal(err)
	}
	l.Now = func() time.Time { return time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC) } // 19:00 PST, the same day
	caps := []Cap{{Name: "day", Period: Day, MaxCostUSD: 5}}
	g, err := l.Reserve(Reservation{ID: "b", Key: k, USD: 1}, caps, 1)
	if err != nil || g.Verdict != Refused || g.Period != "2026-11-24" {
		t.Errorf("reserve $1 after $4.50 of a $5 cap the same day in Los Angeles: %+v, %v; want refused for 2026-11-24", g, err)
	}
	if period, err := l.Approve(Cap{Name: "soft", Period: Day, SoftCostUSD: 1}, "you"); err != nil || period != "2026-11-24" {
		t.Errorf("approve: %q, %v; want the day 2026-11-24", period, err)
	}
}
