package proc

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		tail   bool // TailLines
		max    int
		writes []string
		want   []string
	}{
		{"simple", false, 10, []string{"a\nbb\n"}, []string{"a", "bb"}},
		{"split across writes", false, 10, []string{"he", "llo\nwor", "ld\n"}, []string{"hello", "world"}},
		{"unterminated last line", false, 10, []string{"a\nlast"}, []string{"a", "last"}},
		{"empty lines", false, 10, []string{"\n\nx\n"}, []string{"", "", "x"}},
		{"long line cut", false, 4, []string{"abcdefgh\nij\n"}, []string{"abcd", "ij"}},
		{"long line over writes", false, 4, []string{"ab", "cdef", "gh\nxyz"}, []string{"abcd", "xyz"}},
		{"exactly max", false, 3, []string{"abc\n"}, []string{"abc"}},
		{"huge line", false, 8, []string{strings.Repeat("z", 1<<20) + "\nok\n"}, []string{"zzzzzzzz", "ok"}},
		{"nothing", false, 8, nil, nil},
		{"tail: short lines whole", true, 10, []string{"a\nbb\n"}, []string{"a", "bb"}},
		{"tail: long line keeps its end", true, 4, []string{"abcdefgh\nij\n"}, []string{"efgh", "ij"}},
		{"tail: end over writes", true, 4, []string{"ab", "cdef", "gh\nxyz"}, []string{"efgh", "xyz"}},
		{"tail: end over small writes", true, 4, []string{"ab", "cd", "e", "f\n"}, []string{"cdef"}},
		{"tail: exactly max", true, 3, []string{"abc\n"}, []string{"abc"}},
		{"tail: huge unterminated line", true, 8, []string{strings.Repeat("z", 1<<20) + "12345678"}, []string{"12345678"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			lines := Lines
			if tt.tail {
				lines = TailLines
			}
			w := lines(tt.max, func(l []byte) { got = append(got, string(l)) })
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLinesBoundedBuffer(t *testing.T) {
	t.Parallel()
	lw := Lines(5000, func([]byte) {}).(*lineWriter)
	_, _ = lw.Write([]byte(strings.Repeat("x", 100_000)))
	if c := cap(lw.buf); c > 5000 {
		t.Errorf("buffer capacity %d, want ≤ 5000", c)
	}
	tw := TailLines(5000, func([]byte) {}).(*lineWriter)
	for range 50 {
		_, _ = tw.Write([]byte(strings.Repeat("x", 3000)))
	}
	if c := cap(tw.buf); c > 5000 {
		t.Errorf("tail: buffer capacity %d, want ≤ 5000", c)
	}
}
