package redact

import (
	"bytes"
	"io"
)

// maxLine is the longest stretch without a newline a [Writer] holds back; of a
// longer one it redacts and passes on all but the last holdBack bytes and any
// secret that reaches into them, so a secret split by the cut is found whole in
// the next piece. A stretch in which nothing can be passed on that way (a
// private key block without its END line, in one line of 2 MaxLine) is
// redacted and passed on whole.
const (
	maxLine  = 64 << 10
	holdBack = 32 << 10
)

// Writer passes what is written to it on to another writer line by line, with
// secrets replaced, whatever the sizes of the writes. Its memory is bounded
// by the longest line it holds back. Call Flush (or Close) once the input
// ends, to pass on a last line without a newline.
type Writer struct {
	r   *Redactor
	dst io.Writer
	st  state
	sc  scratch
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
			w.long()
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

// long passes on what it can of a line longer than maxLine.
func (w *Writer) long() {
	for len(w.buf) >= maxLine && w.err == nil {
		out, n := w.r.redact(w.buf, &w.st, holdBack, &w.sc)
		if n == 0 {
			if len(w.buf) < 2*maxLine {
				return // a secret reaches back to the start: wait for more
			}
			out, n = w.r.redact(w.buf, &w.st, 0, &w.sc) // nothing could be passed on: pass it all, redacted
		}
		_, w.err = w.dst.Write(out)
		w.buf = append(w.buf[:0], w.buf[n:]...)
	}
}

// emit redacts whole lines and writes them on.
func (w *Writer) emit(b []byte) {
	if w.err != nil {
		return
	}
	out, _ := w.r.redact(b, &w.st, 0, &w.sc)
	_, w.err = w.dst.Write(out)
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
