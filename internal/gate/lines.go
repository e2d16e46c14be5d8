package gate

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/textcut"
)

// Limits that keep memory bounded on any input.
const (
	MaxLine     = 64 << 10 // bytes of one line kept; the rest of a longer line is skipped
	MaxDocument = 64 << 20 // bytes of a whole-document format (JSON, SARIF) decoded
	MaxFindings = 5000     // findings kept per report
	maxMsgLines = 12       // message lines kept per failing test
	maxMsgBytes = 2048     // message bytes kept per failing test
)

// lineReader yields lines without their end-of-line bytes, cut at MaxLine.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
	err error
}

func newLineReader(r io.Reader) *lineReader {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 64<<10 {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &lineReader{r: br}
}

// next returns the next line, valid until the following call, and false at the end.
func (l *lineReader) next() ([]byte, bool) {
	if l.err != nil {
		return nil, false
	}
	l.buf = l.buf[:0]
	long := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(l.buf) == 0 && !long && err == nil {
			return trimEOL(chunk), true // fast path: the whole line is in the buffer
		}
		if room := MaxLine - len(l.buf); room > 0 {
			l.buf = append(l.buf, chunk[:min(room, len(chunk))]...)
		}
		long = true
		switch {
		case err == nil:
			return trimEOL(l.buf), true
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			l.err = err
			if len(l.buf) == 0 {
				return nil, false
			}
			return trimEOL(l.buf), true
		}
	}
}

// crlfReader passes r on with each "\r\n" made "\n", so that every parser,
// the format's detection and the tail read a gate's output on Windows as
// on Unix (inside JSON or XML a line end is white space either way).
type crlfReader struct {
	r   io.Reader
	buf [32 << 10]byte
	b   []byte // read from r, not yet passed on
	err error
}

func (c *crlfReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		// A '\r' ending what was read waits for the next byte, unless r has ended.
		if len(c.b) == 0 || len(c.b) == 1 && c.b[0] == '\r' && c.err == nil {
			if n > 0 || c.err != nil {
				break
			}
			k := copy(c.buf[:], c.b)
			m, err := c.r.Read(c.buf[k:])
			c.b, c.err = c.buf[:k+m], err
			continue
		}
		if c.b[0] == '\r' {
			if len(c.b) > 1 && c.b[1] == '\n' {
				c.b = c.b[1:] // the '\n' goes on
				continue
			}
			p[n] = '\r'
			n++
			c.b = c.b[1:]
			continue
		}
		run := c.b
		if i := bytes.IndexByte(run, '\r'); i >= 0 {
			run = run[:i]
		}
		k := copy(p[n:], run)
		n += k
		c.b = c.b[k:]
	}
	if n == 0 && c.err != nil {
		return 0, c.err
	}
	return n, nil
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// readErr is the reader's error other than the end of input.
func (l *lineReader) readErr() error {
	if l.err == nil || errors.Is(l.err, io.EOF) {
		return nil
	}
	return l.err
}

var ansiRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]`)
})

// StripANSI removes terminal escape sequences and carriage returns.
func StripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansiRE().ReplaceAllString(s, "")
	}
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r", "")
	}
	return s
}

func stripANSIBytes(b []byte) []byte {
	if bytes.IndexByte(b, 0x1b) < 0 {
		return b
	}
	return ansiRE().ReplaceAll(b, nil)
}

// tailWriter keeps the last bytes written, for the cleaned tail of the output.
type tailWriter struct {
	buf  []byte
	size int
}

func newTailWriter(size int) *tailWriter { return &tailWriter{size: size} }

func (t *tailWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.size {
		t.buf = append(t.buf[:0], p[len(p)-t.size:]...)
		return n, nil
	}
	if len(t.buf)+len(p) > 2*t.size { // compact rarely: amortized O(1) per byte
		keep := t.size - len(p)
		t.buf = t.buf[:copy(t.buf, t.buf[len(t.buf)-keep:])]
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// lines returns the last n non-empty lines, ANSI stripped, joined by newlines.
func (t *tailWriter) lines(n int) string {
	b := t.buf
	if len(b) > t.size {
		b = b[len(b)-t.size:]
	}
	return lastLines(string(b), n)
}

func lastLines(s string, n int) string {
	s = StripANSI(s)
	all := strings.Split(s, "\n")
	var out []string
	for i := len(all) - 1; i >= 0 && len(out) < n; i-- {
		if l := strings.TrimRight(all[i], " \t"); strings.TrimSpace(l) != "" {
			out = append(out, textcut.Runes(l, 300))
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return strings.Join(out, "\n")
}
