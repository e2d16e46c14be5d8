package gitx

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestReadLine: a line is read whole, its newline included, across the
// reader's buffer; one longer than the bound is refused once it passes it,
// not read whole first.
func TestReadLine(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want string
		err  error
	}{
		{"abc\nd", 4, "abc\n", nil},
		{"abc\n", 3, "", ErrTruncated},
		{strings.Repeat("x", 100) + "\n", 101, strings.Repeat("x", 100) + "\n", nil},
		{strings.Repeat("x", 100) + "\n", 50, "", ErrTruncated},
		{"no newline", 20, "no newline", io.EOF},
	} {
		src := strings.NewReader(tt.in)
		got, err := readLine(bufio.NewReaderSize(src, 16), tt.max)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("readLine(%.12q…, %d) = %.12q…, %v; want %.12q…, %v", tt.in, tt.max, got, err, tt.want, tt.err)
		}
		if tt.err == ErrTruncated && src.Len() == 0 && len(tt.in) > 2*tt.max+32 {
			t.Errorf("readLine(%.12q…, %d) read the whole line before refusing it", tt.in, tt.max)
		}
	}
	// A line of 1 MiB under a bound of 1 KiB stops within the buffer's reach.
	src := strings.NewReader(strings.Repeat("y", 1<<20) + "\n")
	if _, err := readLine(bufio.NewReaderSize(src, 16<<10), 1<<10); !errors.Is(err, ErrTruncated) || src.Len() < 1<<19 {
		t.Errorf("a 1 MiB line under a 1 KiB bound: %v, %d bytes left unread", err, src.Len())
	}
}
