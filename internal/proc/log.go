package proc

import (
	"fmt"
	"os"
	"sync"
)

// Log is a bounded log writer: it writes the first head bytes straight to the file,
// keeps only the last tail bytes in memory after that, and on Close appends
// "\n[… N bytes omitted …]\n" and the tail (without the marker when nothing was
// omitted). Memory is bounded by tail whatever is written, and grows to it
// only as the output does: most agents and gates print far less than the
// bound. Safe for concurrent writes.
type Log struct {
	mu     sync.Mutex
	f      *os.File
	head   int
	size   int    // tail: the most bytes kept in ring
	ring   []byte // the last len(ring) bytes seen (len(ring) < size: all of them, in order), circular once full
	pos    int    // next write position in ring
	total  int64  // bytes seen
	err    error  // first file error
	closed bool
}

// NewLog creates (truncates) the file at path with mode 0600 and returns a [Log]
// keeping head bytes at the start and tail bytes at the end of it.
func NewLog(path string, head, tail int) (*Log, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create log: %w", err)
	}
	return &Log{f: f, head: max(head, 0), size: max(tail, 0)}, nil
}

// Write records p. It fails only once a write to the file has failed or the log
// is closed; the bytes are still counted.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0, os.ErrClosed
	}
	if l.total < int64(l.head) {
		n := min(int64(len(p)), int64(l.head)-l.total)
		if l.err == nil {
			_, l.err = l.f.Write(p[:n])
		}
	}
	l.total += int64(len(p))
	l.remember(p)
	if l.err != nil {
		return len(p), fmt.Errorf("write log: %w", l.err)
	}
	return len(p), nil
}

// remember copies the last len(ring) bytes of p into the ring.
func (l *Log) remember(p []byte) {
	size := l.size
	if size == 0 {
		return
	}
	if len(p) >= size {
		l.grow(size)
		l.ring = append(l.ring[:0], p[len(p)-size:]...)
		l.pos = 0
		return
	}
	if room := size - len(l.ring); room > 0 { // not full yet: in order
		n := min(room, len(p))
		l.grow(len(l.ring) + n)
		l.ring = append(l.ring, p[:n]...)
		l.pos = len(l.ring) % size
		if p = p[n:]; len(p) == 0 {
			return
		}
	}
	n := copy(l.ring[l.pos:], p)
	if n < len(p) {
		copy(l.ring, p[n:])
	}
	l.pos = (l.pos + len(p)) % size
}

// grow makes room in ring for n bytes, doubling (from 4 KiB) up to size.
func (l *Log) grow(n int) {
	if cap(l.ring) >= n {
		return
	}
	ring := make([]byte, len(l.ring), min(l.size, max(n, 2*cap(l.ring), 4<<10)))
	copy(ring, l.ring)
	l.ring = ring
}

// Tail returns a copy of the last n bytes seen (n is capped at the tail size and
// at the number of bytes written).
func (l *Log) Tail(n int) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last(n)
}

func (l *Log) last(n int) []byte {
	n = int(min(int64(max(n, 0)), int64(len(l.ring)), l.total))
	out := make([]byte, n)
	start := (l.pos - n + len(l.ring)) % max(len(l.ring), 1)
	k := copy(out, l.ring[start:])
	copy(out[k:], l.ring[:n-k])
	return out
}

// Close writes the tail to the file and closes it. Closing twice is a no-op.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	after := l.total - int64(l.head) // bytes past the head
	if after > 0 && l.err == nil {
		kept := min(after, int64(len(l.ring)))
		if omitted := after - kept; omitted > 0 {
			_, l.err = fmt.Fprintf(l.f, "\n[… %d bytes omitted …]\n", omitted)
		}
		if l.err == nil {
			_, l.err = l.f.Write(l.last(int(kept)))
		}
	}
	cerr := l.f.Close()
	if l.err != nil {
		return fmt.Errorf("write log: %w", l.err)
	}
	if cerr != nil {
		return fmt.Errorf("close log: %w", cerr)
	}
	return nil
}
