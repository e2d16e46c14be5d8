package ledger

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

	mu   sync.Mutex
	f    *os.File
	off  int64 // bytes of the file folded into book
	line int   // lines folded
	book *Book
	me   Owner
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
	l := &Ledger{Path: path, f: f, book: NewBook(loc), me: Owner{PID: os.Getpid(), Host: host, Start: start}}
	return l, nil
}

// Close closes the file.
func (l *Ledger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
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

// update takes the file's lock, folds in what others appended, lets fn look
// at the book and say what to append, appends it in one write, syncs, and
// folds it in too.
func (l *Ledger) update(fn func(b *Book, now time.Time) []Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := lockFile(l.f); err != nil {
		return fmt.Errorf("lock the spend ledger %s: %w", l.Path, err)
	}
	defer func() { unlockFile(l.f) }()
	if err := l.reopenIfMoved(); err != nil {
		return err
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
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync the spend ledger %s: %w", l.Path, err)
	}
	for _, r := range recs {
		l.book.Apply(r)
	}
	l.off += int64(buf.Len())
	l.line += len(recs)
	return nil
}

// reopenIfMoved starts over from the file now at the path when the one open
// was moved aside (a person did, after damage).
func (l *Ledger) reopenIfMoved() error {
	a, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("read the spend ledger %s: %w", l.Path, err)
	}
	b, err := os.Stat(l.Path)
	if err == nil && os.SameFile(a, b) {
		return nil
	}
	unlockFile(l.f)
	_ = l.f.Close()
	f, err := os.OpenFile(l.Path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open the spend ledger %s: %w", l.Path, err)
	}
	l.f = f
	if err := lockFile(l.f); err != nil {
		return fmt.Errorf("lock the spend ledger %s: %w", l.Path, err)
	}
	l.off, l.line, l.book = 0, 0, NewBook(l.book.loc)
	return nil
}

// catchUp folds in the lines appended since the last look. A last line
// without its newline was cut by a crash part-way through its append (under
// the lock, no one else is writing): it was never acknowledged, so it is cut
// off before anything is appended after it.
func (l *Ledger) catchUp() error {
	st, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("read the spend ledger %s: %w", l.Path, err)
	}
	if st.Size() < l.off {
		return fmt.Errorf("the spend ledger %s is shorter than when it was last read (%d bytes, was %d): something other than agentloop changed it; move it aside and agentloop starts a new one", l.Path, st.Size(), l.off)
	}
	if st.Size() == l.off {
		return nil
	}
	r := bufio.NewReaderSize(io.NewSectionReader(l.f, l.off, st.Size()-l.off), 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			more, err2 := readRest(r, line)
			line, err = more, err2
		}
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				if terr := l.f.Truncate(l.off); terr != nil {
					return fmt.Errorf("cut the unfinished last line of the spend ledger %s: %w", l.Path, terr)
				}
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the spend ledger %s: %w", l.Path, err)
		}
		n := len(line)
		if n > maxLine {
			return &CorruptError{Path: l.Path, Line: l.line + 1, Err: fmt.Errorf("a line of %d bytes", n)}
		}
		rec, perr := ParseRecord(bytes.TrimSpace(line))
		if perr != nil {
			return &CorruptError{Path: l.Path, Line: l.line + 1, Err: perr}
		}
		l.book.Apply(rec)
		l.off += int64(n)
		l.line++
	}
}

// readRest reads the rest of a line longer than the reader's buffer, up to
// maxLine+1 bytes.
func readRest(r *bufio.Reader, head []byte) ([]byte, error) {
	line := append([]byte(nil), head...)
	for len(line) <= maxLine {
		more, err := r.ReadSlice('\n')
		line = append(line, more...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
	return line, nil
}

// Reservation is what an iteration asks to hold before it starts.
type Reservation struct {
	ID     string // one iteration's attempt, unique on the machine
	Run    string // which run or task, for people
	Graph  string // the task graph of the task, "" none
	Key    Key
	USD    float64
	Tokens int64
	// First is what the iteration reserves when USD is 0 (the loop has
	// settled no iteration of its own) and the ledger holds no iteration of
	// its provider: [FirstUSD], which the caller works out (so that the
	// figure travels with the reservation; 0 reserves nothing, as a ledger
	// workflow's history of an older build did).
	First float64
}

// DefaultFirstUSD is the most a first iteration reserves by default when the
// ledger holds no iteration of its provider ([FirstUSD]).
const DefaultFirstUSD = 0.50

// firstShare is the part of the tightest cap a first iteration reserves by
// default: ten fresh loops can start under any cap.
const firstShare = 10

// FirstUSD is what a first iteration charged to k reserves when the ledger
// holds no settled iteration of its provider (no mean to predict from):
// configured (budgets: first_iteration_usd) when given, else a tenth of the
// tightest cost limit, hard or soft, of the caps over k, at most
// [DefaultFirstUSD] (an agent CLI's iteration costs tens of cents to a few
// dollars: half a dollar holds a typical one back instead of nothing, and a
// tenth of a small cap still lets ten loops start under it).
func FirstUSD(caps []Cap, k Key, configured float64) float64 {
	if configured > 0 {
		return configured
	}
	first := DefaultFirstUSD
	for _, c := range caps {
		if !c.Matches(k) {
			continue
		}
		for _, limit := range []float64{c.MaxCostUSD, c.SoftCostUSD} {
			if limit > 0 {
				first = min(first, limit/firstShare)
			}
		}
	}
	return first
}

// Reserve holds r's predicted cost when caps allow it, and says so. A
// reservation that is not granted holds nothing. A first iteration (r.USD 0)
// reserves [Book.FirstCost].
func (l *Ledger) Reserve(r Reservation, caps []Cap, margin float64) (Grant, error) {
	var g Grant
	err := l.update(func(b *Book, now time.Time) []Record {
		var rec *Record
		g, rec = b.Reserve(r, caps, margin, now, l.alive, l.me)
		return one(rec)
	})
	return g, err
}

// one is the records to append: rec, if any.
func one(rec *Record) []Record {
	if rec == nil {
		return nil
	}
	return []Record{*rec}
}

// Settle records what the reservation id's iteration spent, charge by
// charge. A reservation is settled once: settling it again changes nothing.
func (l *Ledger) Settle(id, run string, k Key, charges []Charge) error {
	return l.update(func(b *Book, now time.Time) []Record { return one(b.Settle(id, run, k, charges, now)) })
}

// Approve lets the soft limit of cap be passed for the period holding now.
func (l *Ledger) Approve(c Cap, by string) (period string, err error) {
	err = l.update(func(b *Book, now time.Time) []Record {
		var rec *Record
		period, rec = b.Approve(c, by, now)
		return one(rec)
	})
	return period, err
}

// OpenWindow records that k's account hit its usage limit until until.
func (l *Ledger) OpenWindow(k Key, until time.Time, reason string) error {
	return l.update(func(b *Book, now time.Time) []Record { return one(b.OpenWindow(k, until, reason, now)) })
}

// View reads the ledger and calls fn with its book (read only) and the time,
// under the lock.
func (l *Ledger) View(fn func(b *Book, now time.Time)) error {
	return l.update(func(b *Book, now time.Time) []Record {
		fn(b, now)
		return nil
	})
}

// IsAlive reports whether a reservation's owner still runs, as the ledger
// judges it.
func (l *Ledger) IsAlive(o Owner) bool { return l.alive(o) }
