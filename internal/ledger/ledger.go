package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/proc"
)

// FileName is the ledger's name in the user's state folder.
const FileName = "ledger.jsonl"

// maxLine bounds one record's line: a longer one is damage, not a record.
const maxLine = 1 << 20

// Ledger is the shared spend file, open in this process. Its methods are safe
// for concurrent use; other processes use the same file through their own.
type Ledger struct {
	Path string
	// Now is the clock (nil: time.Now); Alive says whether a reservation's
	// process still runs (nil: a live process on this host with the same
	// start time).
	Now   func() time.Time
	Alive func(Owner) bool
	// SyncWithin, when > 0, lets a settlement wait up to that long for its
	// sync when the file was synced (or opened) less than that long ago: the next
	// settlement past it, a timer, or Close syncs it. For a ledger kept by
	// default, not asked for (no budgets), whose records are best effort
	// already (a run goes on without one it cannot open): a loop of short
	// iterations then syncs the file about once a SyncWithin instead of once
	// an iteration, and a machine's crash loses at most that much of its
	// spend. Approvals and windows are synced at once. Set it before use.
	SyncWithin time.Duration

	// Cached keeps the book between processes in a cache beside the file,
	// so that opening a long ledger does not read it whole (see cache.go).
	// For a process that judges reservations and windows, not one that
	// reports past periods. Set it before use.
	Cached bool

	mu       sync.Mutex
	f        *os.File
	off      int64 // bytes of the file folded into book
	line     int   // lines folded
	book     *Book
	me       Owner
	syncs    int       // the file's syncs, for the tests
	synced   time.Time // the last sync, at first the opening (SyncWithin)
	dirty    bool      // an append waits for its sync (SyncWithin)
	timer    *time.Timer
	closed   bool
	looked   bool  // Cached: the cache was looked for
	cacheOff int64 // Cached: the ledger's bytes the cache found or written last folds
	read     int64 // bytes this process folded from the file, for the tests
}

// Open opens the ledger at path, creating it (and its folder, 0700) when it
// does not exist. Periods are in loc (nil: the machine's time zone).
func Open(path string, loc *time.Location) (*Ledger, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create the folder of the spend ledger %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the spend ledger %s: %w", path, err)
	}
	if loc == nil {
		loc = time.Local
	}
	host, _ := os.Hostname()
	start, _ := proc.StartTime(os.Getpid())
	l := &Ledger{Path: path, f: f, book: NewBook(loc), me: Owner{PID: os.Getpid(), Host: host, Start: start}, synced: time.Now()}
	return l, nil
}

// Close syncs what waits for its sync and closes the file.
func (l *Ledger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
	}
	err := l.flush()
	l.writeCache()
	if cerr := l.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close the spend ledger %s: %w", l.Path, cerr)
	}
	return err
}

// flush syncs what waits for its sync; l.mu is held.
func (l *Ledger) flush() error {
	if !l.dirty {
		return nil
	}
	return l.sync()
}

// sync syncs the file; l.mu is held.
func (l *Ledger) sync() error {
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync the spend ledger %s: %w", l.Path, err)
	}
	l.syncs++
	l.synced, l.dirty = l.now(), false
	return nil
}

// syncSoon syncs the file now, or with SyncWithin set and a sync less than
// that long ago, marks it to be synced within it; l.mu is held.
func (l *Ledger) syncSoon() error {
	since := l.now().Sub(l.synced)
	if l.SyncWithin <= 0 || since >= l.SyncWithin || since < 0 {
		return l.sync()
	}
	l.dirty = true
	if l.timer == nil {
		l.timer = time.AfterFunc(l.SyncWithin-since, func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.timer = nil
			if !l.closed {
				_ = l.flush() // a failure is the next sync's to tell
			}
		})
	}
	return nil
}

func (l *Ledger) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *Ledger) alive(o Owner) bool {
	if l.Alive != nil {
		return l.Alive(o)
	}
	if o.PID == 0 {
		return false
	}
	if o.Host != l.me.Host {
		return true // another machine's (a shared home): counted until settled
	}
	if o.PID == l.me.PID && o.Start == l.me.Start {
		return true
	}
	if !proc.Alive(o.PID) {
		return false
	}
	st, err := proc.StartTime(o.PID)
	return err != nil || o.Start == "" || st == "" || st == o.Start
}

// syncWhen is when update syncs what it appended.
type syncWhen int

const (
	syncLater syncWhen = iota // with the next sync (a reservation)
	syncSoon                  // now, or within SyncWithin when set (a settlement)
	syncNow                   // now (an approval, a window)
)

// update takes the file's lock, folds in what others appended, lets fn look
// at the book and say what to append, appends it in one write, syncs it when
// sync says, and folds it in too.
//
// A reservation is not synced on its own: what it is for, other loops
// counting it while its process runs, every process reads from the page
// cache once the append returns (a crash of the process keeps it there), and
// the crash of the machine, the one thing a sync guards against, ends every
// process that holds one, after which no reservation of theirs counts; the
// attempt's recovery settles it by its id all the same. The next synced
// append (the settlement, minutes later) makes it durable with it. So an
// iteration costs the ledger one sync, its settlement's, not two.
func (l *Ledger) update(fn func(b *Book, now time.Time) []Record, sync syncWhen) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := lockFile(l.f); err != nil {
		return fmt.Errorf("lock the spend ledger %s: %w", l.Path, err)
	}
	defer func() { unlockFile(l.f) }()
	if err := l.reopenIfMoved(); err != nil {
		return err
	}
	if l.Cached && !l.looked {
		l.looked = true
		if l.off == 0 {
			l.restoreCache()
		}
	}
	if err := l.catchUp(); err != nil {
		return err
	}
	if fn == nil {
		return nil
	}
	recs := fn(l.book, l.now())
	if len(recs) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("write the spend ledger %s: %w", l.Path, err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if _, err := l.f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write the spend ledger %s: %w", l.Path, err)
	}
	switch sync {
	case syncNow:
		if err := l.sync(); err != nil {
			return err
		}
	case syncSoon:
		if err := l.syncSoon(); err != nil {
			return err
		}
	}
	for _, r := range recs {
		l.book.Apply(r)
	}
	l.off += int64(buf.Len())
	l.line += len(recs)
	return nil
}
