package ledger

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

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
	_ = l.flush() // the appends it holds belong to the file moved aside
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
	l.off, l.line, l.book, l.cacheOff = 0, 0, NewBook(l.book.loc), 0
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
		l.read += int64(n)
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
