package ledger

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
)

// spend appends n reserved and settled iterations of run to the ledger at
// path, through a process's ledger that is cached or not, and closes it.
func spend(t *testing.T, path, run string, n int, cached bool) {
	t.Helper()
	l, err := Open(path, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	l.Cached = cached
	k := budget.Key{Provider: "claude", Account: "claude:a"}
	caps := []Cap{{Name: "day", Period: Day, MaxCostUSD: 1e9}}
	for i := range n {
		id := fmt.Sprintf("%s#%d", run, i)
		if _, err := l.Reserve(Reservation{ID: id, Run: run, Key: k, USD: 1}, caps, 1); err != nil {
			t.Fatal(err)
		}
		if err := l.Settle(id, run, k, []Charge{{Key: k, USD: 0.5, Tokens: 10}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// look opens the ledger at path as a process does, cached or not in loc, and
// returns its book as a snapshot and how many bytes of the file it read.
func look(t *testing.T, path string, loc *time.Location, cached bool) (Snapshot, int64) {
	t.Helper()
	l, err := Open(path, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Cached = cached
	var s Snapshot
	if err := l.View(func(b *Book, now time.Time) { s = b.Snapshot(KeepSince(now)) }); err != nil {
		t.Fatal(err)
	}
	return s, l.read
}

// TestCachedBookReadsOnlyWhatFollows: a process that keeps the book cached
// reads only the lines appended after the cache, and sees the book a whole
// read sees; the cache is not used for a ledger moved aside and begun again,
// nor in another time zone, nor by a process that does not ask for it.
func TestCachedBookReadsOnlyWhatFollows(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	spend(t, path, "first", 200, true) // past cacheEvery: its close writes the cache
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	if _, err := os.Stat(path + CacheSuffix); err != nil || size() < cacheEvery {
		t.Fatalf("the cache after %d bytes: %v", size(), err)
	}
	whole, read := look(t, path, time.UTC, false)
	if read != size() {
		t.Fatalf("a process without the cache read %d bytes of %d", read, size())
	}
	if got, read := look(t, path, time.UTC, true); read != 0 || !reflect.DeepEqual(got, whole) {
		t.Errorf("with the cache: read %d bytes (want 0), book equal to the whole read's: %v", read, reflect.DeepEqual(got, whole))
	}

	before := size()
	spend(t, path, "second", 3, false) // another process, appending
	whole, _ = look(t, path, time.UTC, false)
	if got, read := look(t, path, time.UTC, true); read != size()-before || !reflect.DeepEqual(got, whole) {
		t.Errorf("with the cache after appends: read %d bytes (want the %d appended), book equal to the whole read's: %v", read, size()-before, reflect.DeepEqual(got, whole))
	}

	// Another time zone names other periods: the whole file is read.
	if _, read := look(t, path, time.FixedZone("elsewhere", 5*3600), true); read != size() {
		t.Errorf("in another time zone: read %d bytes, want all %d", read, size())
	}

	// The ledger moved aside and begun again, as long as the old one: the
	// cache does not match its bytes.
	if err := os.Rename(path, path+".bad"); err != nil {
		t.Fatal(err)
	}
	spend(t, path, "again", 210, false)
	if size() < before {
		t.Fatalf("the new ledger is %d bytes, want at least %d", size(), before)
	}
	whole, _ = look(t, path, time.UTC, false)
	if got, read := look(t, path, time.UTC, true); read != size() || !reflect.DeepEqual(got, whole) {
		t.Errorf("a new ledger: read %d bytes (want all %d), book equal to the whole read's: %v", read, size(), reflect.DeepEqual(got, whole))
	}
}
