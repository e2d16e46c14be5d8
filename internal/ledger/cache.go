package ledger

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// The ledger's file only grows: a year of a user's loops is tens of
// thousands of lines, and a process that folded it whole at its first look
// read all of them, at the start of every run. A process that judges
// reservations and windows ([Ledger.Cached]) keeps its book, as a [Snapshot]
// of what is not over, in a file beside the ledger ([CacheSuffix]), with the
// length of the ledger it was folded from; the next such process restores
// it and reads only the lines appended after that length.
//
// The cache is a copy, never the record: it is replaced without a sync, and
// one that is missing, damaged, of another time zone, or no longer matches
// the ledger's bytes where it ends (the ledger was moved aside and begun
// again) is not used, and the whole ledger is read, as before. It drops what
// a snapshot drops ([Book.Snapshot]): the periods over before [KeepSince], so
// a process that reports past periods reads the ledger whole (it does not
// set Cached), and the settlements from before it, as the Temporal engine's
// ledger workflow does when it starts its history anew.

// CacheSuffix names the cache of a ledger's book: the ledger's path and it.
const CacheSuffix = ".book"

// KeepSince is how far back from now a book carried over (the cache, a
// Temporal ledger workflow started anew) keeps what is over: past the month
// and the ISO week holding now.
func KeepSince(now time.Time) time.Time { return now.AddDate(0, -1, -7) }

// cacheEvery is how many bytes of the ledger a process reads past its cache
// before it writes the cache again, as it closes the ledger.
const cacheEvery = 32 << 10

// cacheTail is how many of the ledger's bytes before the cache's end the
// cache keeps, to tell that the ledger is still the one it was folded from.
const cacheTail = 64

// cached is the cache file's content.
type cached struct {
	Off  int64    `json:"off"`  // the ledger's bytes the book folds
	Line int      `json:"line"` // its lines
	Tail string   `json:"tail"` // its last bytes (at most cacheTail)
	Zone string   `json:"zone"` // the time zone of the periods' names ([zoneOf])
	Book Snapshot `json:"book"`
}

// restoreCache restores the book and the offset from the cache when it
// matches the ledger; l.mu and the file's lock are held, nothing is folded
// yet.
func (l *Ledger) restoreCache() {
	data, err := os.ReadFile(l.Path + CacheSuffix)
	if err != nil {
		return
	}
	var c cached
	if json.Unmarshal(data, &c) != nil || c.Off <= 0 || len(c.Tail) == 0 || len(c.Tail) > cacheTail || int64(len(c.Tail)) > c.Off ||
		c.Tail[len(c.Tail)-1] != '\n' || c.Zone != zoneOf(l.book.loc, l.now()) {
		return
	}
	tail := make([]byte, len(c.Tail))
	if _, err := l.f.ReadAt(tail, c.Off-int64(len(tail))); err != nil || string(tail) != c.Tail {
		return
	}
	l.book, l.off, l.line, l.cacheOff = Restore(c.Book, l.book.loc), c.Off, c.Line, c.Off
}

// writeCache replaces the cache with the book as folded now, when this
// process read cacheEvery bytes or more past the cache it found; l.mu is
// held. A failure only costs the next process the whole read.
func (l *Ledger) writeCache() {
	if !l.Cached || l.off-l.cacheOff < cacheEvery {
		return
	}
	tail := make([]byte, min(l.off, cacheTail))
	if _, err := l.f.ReadAt(tail, l.off-int64(len(tail))); err != nil {
		return
	}
	now := l.now()
	data, err := json.Marshal(cached{Off: l.off, Line: l.line, Tail: string(tail), Zone: zoneOf(l.book.loc, now), Book: l.book.Snapshot(KeepSince(now))})
	if err != nil {
		return
	}
	if replaceVolatile(l.Path+CacheSuffix, data) == nil {
		l.cacheOff = l.off
	}
}

// replaceVolatile replaces path with data, a reader seeing the old content
// or the new, neither made durable: a cache that a power loss may take
// (the next process reads the whole ledger then).
func replaceVolatile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// zoneOf tells the time zone the periods' names are in: its name and, since
// two processes' Local can differ (TZ), its offset and abbreviation now (a
// change of daylight saving time makes the cache unused once).
func zoneOf(loc *time.Location, now time.Time) string {
	return loc.String() + " " + now.In(loc).Format("-0700 MST")
}
