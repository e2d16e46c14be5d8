package ledger

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/testenv"
)

func open(t testing.TB, path string) *Ledger {
	t.Helper()
	l, err := Open(path, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// loop plays one loop against the ledger at path: before each iteration it
// reserves 1.2 × the mean of its own iterations (the first: the ledger's
// prior), stops when refused, spends a cost drawn around mean and settles.
// It returns what it spent and the largest reservation it held.
func loop(t testing.TB, path string, n int, mean float64, caps []Cap, seed uint64) (spent, maxHeld float64, err error) {
	l, err := Open(path, time.UTC)
	if err != nil {
		return 0, 0, err
	}
	defer l.Close()
	rng := rand.New(rand.NewPCG(seed, 1))
	k := budget.Key{Provider: "claude", Account: "claude:test"}
	var costs []float64
	for i := 1; ; i++ {
		var predict float64
		for _, c := range costs {
			predict += c
		}
		if len(costs) > 0 {
			predict = 1.2 * predict / float64(len(costs))
		}
		id := fmt.Sprintf("loop-%d-%d-%d", n, seed, i)
		g, err := l.Reserve(Reservation{ID: id, Run: fmt.Sprintf("loop-%d", n), Key: k, USD: predict}, caps, 1.2)
		if err != nil {
			return spent, maxHeld, err
		}
		if g.Verdict != Granted {
			return spent, maxHeld, nil
		}
		var held float64
		_ = l.View(func(b *Book, _ time.Time) {
			for _, h := range b.OpenReservations(nil) {
				if h.ID == id {
					held = h.USD
				}
			}
		})
		maxHeld = max(maxHeld, held)
		cost := mean * (0.5 + rng.Float64()) // 0.5–1.5 × the mean
		if g.LeftUSD >= 0 {
			cost = min(cost, g.LeftUSD+0.001) // the agent is ended when its live cost crosses what is left
		}
		costs = append(costs, cost)
		if err := l.Settle(id, fmt.Sprintf("loop-%d", n), k, []Charge{{Key: k, USD: cost}}); err != nil {
			return spent, maxHeld, err
		}
		spent += cost
	}
}

// TestParallelLoopsOvershootByAtMostOneReservationEach runs 12 loops at once
// against one ledger, each with its own open file (flock sees them as
// strangers, as it does other processes), under a daily cap of $3 with
// iterations of about $0.10: together they stop within one reservation each
// of the cap.
func TestParallelLoopsOvershootByAtMostOneReservationEach(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	caps := []Cap{{Name: "day", Period: Day, MaxCostUSD: 3}}
	const loops = 12
	spent := make([]float64, loops)
	held := make([]float64, loops)
	var wg sync.WaitGroup
	for i := range loops {
		wg.Go(func() {
			var err error
			spent[i], held[i], err = loop(t, path, i, 0.10, caps, uint64(i+1))
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var total, bound float64
	for i := range loops {
		total += spent[i]
		bound += held[i]
	}
	t.Logf("%d loops spent $%.3f under a cap of $3.00 (overshoot $%.3f, bound: one reservation each, $%.3f)", loops, total, total-3, bound)
	if total > 3+bound {
		t.Errorf("spent $%.3f, more than the cap and one reservation per loop ($%.3f)", total, 3+bound)
	}
	if total < 2.5 {
		t.Errorf("spent $%.3f: the loops stopped long before the cap", total)
	}
	// A fresh reader folds the same file to the same total.
	var s Sum
	if err := open(t, path).View(func(b *Book, now time.Time) { s = b.Spent(caps[0], now) }); err != nil {
		t.Fatal(err)
	}
	if d := s.USD - total; d > 1e-9 || d < -1e-9 {
		t.Errorf("the ledger says $%.6f, the loops spent $%.6f", s.USD, total)
	}
}

func TestTornLastLineIsCut(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	k := budget.Key{Provider: "claude"}
	l := open(t, path)
	if err := l.Settle("a", "r", k, []Charge{{Key: k, USD: 1}}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"k":"settle","id":"b","at":"2026-11-25T10:00:00Z","charges":[{"usd":`) // a crash mid-append
	_ = f.Close()
	l2 := open(t, path)
	if err := l2.Settle("c", "r", k, []Charge{{Key: k, USD: 2}}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) != 2 || strings.Contains(string(data), `"id":"b"`) {
		t.Errorf("ledger after the torn line:\n%s", data)
	}
	var s Sum
	_ = open(t, path).View(func(b *Book, now time.Time) { s = b.Spent(Cap{Period: Month}, now) })
	if s.USD != 3 {
		t.Errorf("spent $%g, want $3", s.USD)
	}
}

func TestDamagedLineNamesFileAndLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	content := `{"k":"approve","at":"2026-11-25T10:00:00Z","cap":"day","period":"2026-11-25"}` + "\n" + "not json\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	damaged := open(t, path)
	err := damaged.View(func(*Book, time.Time) {})
	_ = damaged.Close() // the loop that said so has ended: Windows renames no open file
	ce, ok := errors.AsType[*CorruptError](err)
	if !ok || ce.Line != 2 {
		t.Fatalf("error %v, want a CorruptError at line 2", err)
	}
	for _, want := range []string{path + " is damaged at line 2", "mv " + path + " " + path + ".bad"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// Moved aside, a new ledger starts.
	if err := os.Rename(path, path+".bad"); err != nil {
		t.Fatal(err)
	}
	l := open(t, path)
	if err := l.View(func(*Book, time.Time) {}); err != nil {
		t.Errorf("after moving it aside: %v", err)
	}
}

func TestRecordsWithoutTheirFields(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`{"at":"2026-11-25T10:00:00Z"}`,
		`{"k":"settle","at":"2026-11-25T10:00:00Z"}`,
		`{"k":"reserve","id":"a"}`,
		`{"k":"approve","at":"2026-11-25T10:00:00Z","cap":"day"}`,
		`{"k":"window","at":"2026-11-25T10:00:00Z","provider":"claude"}`,
		`{"k":"settle","id":"a","at":"2026-11-25T10:00:00Z"} {}`,
	} {
		if _, err := ParseRecord([]byte(line)); err == nil {
			t.Errorf("ParseRecord(%s) = nil error", line)
		}
	}
}

func TestWindowAndApproveAreShared(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	now := t0
	a, b := open(t, path), open(t, path)
	a.Now, b.Now = func() time.Time { return now }, func() time.Time { return now }
	k := budget.Key{Provider: "claude", Account: "claude:aa", Model: "sonnet"}
	if err := a.OpenWindow(k, t0.Add(time.Hour), "usage limit reached"); err != nil {
		t.Fatal(err)
	}
	var w Window
	var ok bool
	_ = b.View(func(bk *Book, now time.Time) {
		w, ok = bk.WindowOf(budget.Key{Provider: "claude", Account: "claude:aa"}, now)
	})
	if !ok || !w.Until.Equal(t0.Add(time.Hour)) {
		t.Errorf("the other loop sees window %+v (%v)", w, ok)
	}
	c := Cap{Name: "day", Period: Day, SoftCostUSD: 1}
	if _, err := b.Approve(c, "you"); err != nil {
		t.Fatal(err)
	}
	var approved bool
	_ = a.View(func(bk *Book, now time.Time) { approved = bk.Approved(c, now) })
	if !approved {
		t.Error("an approval made by one loop is not seen by the other")
	}
	now = t0.Add(2 * time.Hour)
	_ = b.View(func(bk *Book, now time.Time) { _, ok = bk.WindowOf(k, now) })
	if ok {
		t.Error("the window is still open after its reset")
	}
}

// TestKilledProcessLeavesNoHold runs loops as processes, SIGKILLs one while
// it holds a reservation, and checks that the ledger still reads, that the
// dead loop's reservation no longer counts, and that settling it later (a
// recovery) counts it once.
func TestKilledProcessLeavesNoHold(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts processes")
	}
	path := filepath.Join(t.TempDir(), FileName)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHold$")
	cmd.Env = append(os.Environ(), "LEDGER_HELPER="+path, "GORACE="+testenv.GORACE())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf) // "held\n" once its reservation is in the file
	if !strings.Contains(string(buf[:n]), "held") {
		t.Fatalf("helper said %q", buf[:n])
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	l := open(t, path)
	caps := []Cap{{Name: "day", Period: Day, MaxCostUSD: 1}}
	k := budget.Key{Provider: "claude"}
	g, err := l.Reserve(Reservation{ID: "after", Key: k, USD: 0.5}, caps, 1.2)
	if err != nil || g.Verdict != Granted {
		t.Fatalf("after the kill: %+v, %v (the dead loop's $0.9 still held?)", g, err)
	}
	if err := l.Settle("helper-1", "helper", k, []Charge{{Key: k, USD: 0.2}}); err != nil {
		t.Fatal(err)
	}
	if err := l.Settle("helper-1", "helper", k, []Charge{{Key: k, USD: 0.2}}); err != nil {
		t.Fatal(err)
	}
	var s Sum
	_ = l.View(func(b *Book, now time.Time) { s = b.Spent(caps[0], now) })
	if s.USD != 0.2 || s.Iterations != 1 {
		t.Errorf("spent %+v, want $0.2 in one iteration", s)
	}
}

func TestHelperHold(t *testing.T) {
	path := os.Getenv("LEDGER_HELPER")
	if path == "" {
		t.Skip("a helper process of TestKilledProcessLeavesNoHold")
	}
	l, err := Open(path, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Reserve(Reservation{ID: "helper-1", Key: budget.Key{Provider: "claude"}, USD: 0.9}, nil, 1.2); err != nil {
		t.Fatal(err)
	}
	fmt.Println("held")
	time.Sleep(time.Minute)
}

// BenchmarkReserveSettle is one iteration's ledger work: a reservation
// judged against three caps and its settlement, each under the lock with an
// fsync, in a ledger of 10,000 settled iterations.
func BenchmarkReserveSettle(b *testing.B) {
	path := filepath.Join(b.TempDir(), FileName)
	var sb strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&sb, `{"k":"settle","id":"old-%d","at":"%s","run":"r","provider":"claude","charges":[{"provider":"claude","usd":0.01,"tokens":100}]}`+"\n",
			i, time.Now().UTC().Format(time.RFC3339))
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	l := open(b, path)
	caps := []Cap{{Name: "day", Period: Day, MaxCostUSD: 1e9}, {Name: "week/claude", Period: Week, Provider: "claude", MaxCostUSD: 1e9}, {Name: "month", Period: Month, SoftCostUSD: 1e9}}
	k := budget.Key{Provider: "claude", Account: "claude:x", Model: "m"}
	if err := l.View(func(*Book, time.Time) {}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		id := "it-" + strconv.Itoa(i)
		if _, err := l.Reserve(Reservation{ID: id, Key: k, USD: 0.01}, caps, 1.2); err != nil {
			b.Fatal(err)
		}
		if err := l.Settle(id, "r", k, []Charge{{Key: k, USD: 0.01, Tokens: 100}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenFold is a process's first look at a ledger of 10,000 settled
// iterations.
func BenchmarkOpenFold(b *testing.B) {
	path := filepath.Join(b.TempDir(), FileName)
	var sb strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&sb, `{"k":"settle","id":"old-%d","at":"2026-11-25T10:00:00Z","run":"r","provider":"claude","charges":[{"provider":"claude","usd":0.01,"tokens":100}]}`+"\n", i)
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		l, err := Open(path, time.UTC)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.View(func(*Book, time.Time) {}); err != nil {
			b.Fatal(err)
		}
		_ = l.Close()
	}
}

// TestAnIterationSyncsOnce: a reservation and its settlement cost the file
// one sync, the settlement's; the reservation is not synced on its own, and
// another process (here another open file) counts it at once all the same.
func TestAnIterationSyncsOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	k := budget.Key{Provider: "claude", Account: "claude:a"}
	l, other := open(t, path), open(t, path)
	caps := []Cap{{Name: "day", Period: Day, MaxCostUSD: 10}}
	if g, err := l.Reserve(Reservation{ID: "a#1", Run: "r", Key: k, USD: 4}, caps, 1); err != nil || g.Verdict != Granted {
		t.Fatalf("reserve: %v, %v", g, err)
	}
	if l.syncs != 0 {
		t.Errorf("a reservation synced the file %d times, want 0", l.syncs)
	}
	var held float64
	if err := other.View(func(b *Book, _ time.Time) { held, _ = b.Reserved(caps[0], nil, "") }); err != nil {
		t.Fatal(err)
	}
	if held != 4 {
		t.Errorf("another process sees $%g held, want $4", held)
	}
	if err := l.Settle("a#1", "r", k, []Charge{{Key: k, USD: 3}}); err != nil {
		t.Fatal(err)
	}
	if l.syncs != 1 {
		t.Errorf("a reservation and its settlement synced the file %d times, want 1", l.syncs)
	}
}

// TestZerosOfACrashAreSkipped: the zeros a machine's crash leaves where an
// unsynced reservation was, before or inside a line the disk kept, are
// skipped; the records around them count, and what follows the zeros too.
func TestZerosOfACrashAreSkipped(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	settle := func(id string) string {
		return `{"k":"settle","id":"` + id + `","at":"2026-11-25T10:00:00Z","provider":"claude","charges":[{"provider":"claude","usd":1,"tokens":0}]}` + "\n"
	}
	content := settle("a") +
		strings.Repeat("\x00", 300) + settle("b") + // a whole reservation zeroed, then a record the disk kept
		`{"k":"reserve","id":"c","at":"2026-11-` + strings.Repeat("\x00", 40) + "\n" + // a torn one
		strings.Repeat("\x00", 20) + `-11-25T10:00:00Z","usd":2}` + "\n" + // its end alone
		settle("d")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	var s Sum
	if err := open(t, path).View(func(b *Book, now time.Time) { s = b.Spent(Cap{Period: Month}, now) }); err != nil {
		t.Fatal(err)
	}
	if s.USD != 3 {
		t.Errorf("spent $%g, want $3 (a, b and d)", s.USD)
	}
}

// TestSyncWithin: with SyncWithin set, a settlement less than that long
// after the last sync waits for the next one past it, or Close; without it,
// each settlement is synced before Settle returns. Approvals are synced at once.
func TestSyncWithin(t *testing.T) {
	t.Parallel()
	k := budget.Key{Provider: "claude"}
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		within time.Duration // an hour: its timer does not fire during the test
		want   []int         // syncs after settlements at 0, 30, 90 and 96 minutes, an approval, and Close
	}{
		{0, []int{1, 2, 3, 4, 5, 5}},
		{time.Hour, []int{1, 1, 2, 2, 3, 3}},
	} {
		l := open(t, filepath.Join(t.TempDir(), FileName))
		l.SyncWithin = c.within
		at := now
		l.Now = func() time.Time { return at }
		var got []int
		for i, m := range []time.Duration{0, 30, 90, 96} {
			at = now.Add(m * time.Minute)
			if err := l.Settle(fmt.Sprint(i), "r", k, []Charge{{Key: k, USD: 1}}); err != nil {
				t.Fatal(err)
			}
			got = append(got, l.syncs)
		}
		if _, err := l.Approve(Cap{Name: "day", Period: Day}, "me"); err != nil {
			t.Fatal(err)
		}
		got = append(got, l.syncs)
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		got = append(got, l.syncs)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("SyncWithin %s: syncs %v, want %v", c.within, got, c.want)
		}
	}
	// Settlements within SyncWithin of the opening: one sync, Close's.
	l := open(t, filepath.Join(t.TempDir(), FileName))
	l.SyncWithin = time.Hour
	for i := range 3 {
		if err := l.Settle(fmt.Sprint(i), "r", k, []Charge{{Key: k, USD: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil || l.syncs != 1 {
		t.Errorf("three settlements as the ledger opens and Close: %d syncs (%v), want 1", l.syncs, err)
	}
}

// TestSyncWithinTimer: a settlement that waits for its sync gets it within
// SyncWithin, with no other append or Close after it.
func TestSyncWithinTimer(t *testing.T) {
	t.Parallel()
	k := budget.Key{Provider: "claude"}
	l := open(t, filepath.Join(t.TempDir(), FileName))
	l.SyncWithin = 50 * time.Millisecond
	for i := range 2 { // as it opens: both wait
		if err := l.Settle(fmt.Sprint(i), "r", k, []Charge{{Key: k, USD: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		l.mu.Lock()
		syncs, dirty := l.syncs, l.dirty
		l.mu.Unlock()
		if syncs == 1 && !dirty {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d syncs, dirty %v, 10 s after the settlements; want 1, synced", syncs, dirty)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
