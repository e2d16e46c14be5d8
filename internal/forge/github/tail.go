package github

import (
	"io"
	"strings"
	"unicode/utf8"
)

// logTailBytes is how much of a failing job's log is kept: its end, where
// the failure is.
const logTailBytes = 4 << 10

// readTail reads r to its end and keeps at most the last n bytes: from the
// first whole line in them when the log is longer, as valid UTF-8 (an
// invalid byte becomes U+FFFD, a rune cut at the start is dropped).
func readTail(r io.Reader, n int) (string, error) {
	if n <= 0 {
		_, err := io.Copy(io.Discard, r)
		return "", err
	}
	buf := make([]byte, 0, 2*n)
	chunk := make([]byte, 32<<10)
	cut := false
	for {
		k, err := r.Read(chunk)
		buf = append(buf, chunk[:k]...)
		if len(buf) > 2*n {
			buf = append(buf[:0], buf[len(buf)-n:]...)
			cut = true
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
	}
	return tail(buf, n, cut), nil
}

// tail is the last n bytes of b (cut: b is already the end of something
// longer), starting at a whole line and at a whole rune, valid UTF-8, at
// most n bytes.
func tail(b []byte, n int, cut bool) string {
	if len(b) > n {
		b, cut = b[len(b)-n:], true
	}
	if cut {
		// The first line is a part of one: drop it when a whole one follows.
		if i := strings.IndexByte(string(b), '\n'); i >= 0 && i+1 < len(b) {
			b = b[i+1:]
		}
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	for len(s) > n { // U+FFFD is longer than the byte it replaces
		_, size := utf8.DecodeRuneInString(s)
		s = s[size:]
	}
	return s
}
