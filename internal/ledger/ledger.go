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

	mu    sync.Mutex
	f     *os.File
	off   int64 // bytes of the file folded into book
	line  int   // lines folded
	book  *Book
	me    Owner
	syncs int // the file's syncs, for the tests
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
// at the book and say what to append, appends it in one write, syncs it when
// sync says so, and folds it in too.
//
// A reservation is not synced on its own: what it is for, other loops
// counting it while its process runs, every process reads from the page
// cache once the append returns (a crash of the process keeps it there), and
// the crash of the machine, the one thing a sync guards against, ends every
// process that holds one, after which no reservation of theirs counts; the
// attempt's recovery settles it by its id all the same. The next synced
// append (the settlement, minutes later) makes it durable with it. So an
// iteration costs the ledger one sync, its settlement's, not two.
func (l *Ledger) update(fn func(b *Book, now time.Time) []Record, sync bool) error {
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
	if sync {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("sync the spend ledger %s: %w", l.Path, err)
		}
		l.syncs++
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
		text, torn := bytes.TrimSpace(line), false
		if i := bytes.LastIndexByte(text, 0); i >= 0 {
			// Zeros where a reservation was: the machine crashed before
			// the file's next sync and the disk kept a later page of it
			// and not this one (see update). Its process died with the
			// machine; what follows the zeros may be a whole record.
			text, torn = text[i+1:], true
		}
		rec, perr := ParseRecord(text)
		switch {
		case perr == nil:
			l.book.Apply(rec)
		case !torn:
			return &CorruptError{Path: l.Path, Line: l.line + 1, Err: perr}
		}
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
