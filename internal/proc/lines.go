package proc

import (
	"bytes"
	"io"
	"sync"
)

// Lines returns a writer that calls fn for each complete line (without '\n'); lines
// longer than max are cut to max (the rest of that line dropped); memory ≤ max.
// Close passes a last unterminated line to fn. fn must not keep the slice.
func Lines(max int, fn func(line []byte)) io.WriteCloser {
	if max < 1 {
		max = 1
	}
	return &lineWriter{max: max, fn: fn, buf: make([]byte, 0, min(max, 4096))}
}

// TailLines is [Lines] keeping the end of a line longer than max: its last max
// bytes (what a reader of the last lines wants, such as a progress bar that
// redraws itself with carriage returns on one line).
func TailLines(max int, fn func(line []byte)) io.WriteCloser {
	w := Lines(max, fn).(*lineWriter)
	w.tail = true
	return w
}

type lineWriter struct {
	mu      sync.Mutex
	max     int
	tail    bool // keep a long line's end, not its start
	fn      func([]byte)
	buf     []byte
	pending bool // a line has started and not ended
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		switch room := w.max - len(w.buf); {
		case w.tail:
			w.keepEnd(chunk)
		case room > 0:
			w.add(chunk[:min(room, len(chunk))])
		}
		w.pending = true
		if i < 0 {
			break
		}
		w.fn(w.buf)
		w.buf, w.pending = w.buf[:0], false
		p = p[i+1:]
	}
	return n, nil
}

func (w *lineWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pending {
		w.fn(w.buf)
		w.buf, w.pending = w.buf[:0], false
	}
	return nil
}

// keepEnd appends b, dropping the start of the line beyond max bytes.
func (w *lineWriter) keepEnd(b []byte) {
	if len(b) >= w.max {
		w.buf = w.buf[:0]
		w.add(b[len(b)-w.max:])
		return
	}
	if over := len(w.buf) + len(b) - w.max; over > 0 {
		w.buf = w.buf[:copy(w.buf, w.buf[over:])]
	}
	w.add(b)
}

// add appends b (which fits in max) to the buffer, growing it no further than max.
func (w *lineWriter) add(b []byte) {
	if need := len(w.buf) + len(b); need > cap(w.buf) {
		nb := make([]byte, len(w.buf), min(w.max, max(2*cap(w.buf), need)))
		copy(nb, w.buf)
		w.buf = nb
	}
	w.buf = append(w.buf, b...)
}
