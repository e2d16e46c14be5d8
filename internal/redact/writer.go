package redact

import (
	"bytes"
	"io"
)

// maxLine is the longest stretch without a newline a [Writer] holds back; a
// longer one is redacted and passed on in pieces (a secret cut by such a piece
// boundary can escape, which a line of 64 KiB makes unlikely).
const maxLine = 64 << 10

// Writer passes what is written to it on to another writer line by line, with
// secrets replaced. Its memory is bounded by the longest line it holds back.
// Call Flush (or Close) once the input ends, to pass on a last line without a
// newline.
type Writer struct {
	r   *Redactor
	dst io.Writer
	buf []byte
	err error
}

// NewWriter returns a Writer to dst.
func (r *Redactor) NewWriter(dst io.Writer) *Writer {
	return &Writer{r: r, dst: dst}
}

// Write implements io.Writer. It reports len(p) written unless dst failed.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.buf = append(w.buf, p...)
			if len(w.buf) >= maxLine {
				w.emit(w.buf)
				w.buf = w.buf[:0]
			}
			break
		}
		if len(w.buf) > 0 {
			w.buf = append(w.buf, p[:i+1]...)
			w.emit(w.buf)
			w.buf = w.buf[:0]
		} else {
			// Whole lines straight from p: redact the run of them at once.
			j := bytes.LastIndexByte(p, '\n')
			w.emit(p[:j+1])
			i = j
		}
		p = p[i+1:]
	}
	if w.err != nil {
		return 0, w.err
	}
	return n, nil
}

// emit redacts b and writes it on. No secret shape spans a newline, so a run of
// whole lines is redacted at once.
func (w *Writer) emit(b []byte) {
	if w.err != nil {
		return
	}
	_, w.err = w.dst.Write(w.r.Bytes(b))
}

// Flush passes on what is held back.
func (w *Writer) Flush() error {
	if len(w.buf) > 0 {
		w.emit(w.buf)
		w.buf = w.buf[:0]
	}
	return w.err
}

// Close flushes; it does not close the destination.
func (w *Writer) Close() error { return w.Flush() }
