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
		max    int
		writes []string
		want   []string
	}{
		{"simple", 10, []string{"a\nbb\n"}, []string{"a", "bb"}},
		{"split across writes", 10, []string{"he", "llo\nwor", "ld\n"}, []string{"hello", "world"}},
		{"unterminated last line", 10, []string{"a\nlast"}, []string{"a", "last"}},
		{"empty lines", 10, []string{"\n\nx\n"}, []string{"", "", "x"}},
		{"long line cut", 4, []string{"abcdefgh\nij\n"}, []string{"abcd", "ij"}},
		{"long line over writes", 4, []string{"ab", "cdef", "gh\nxyz"}, []string{"abcd", "xyz"}},
		{"exactly max", 3, []string{"abc\n"}, []string{"abc"}},
		{"huge line", 8, []string{strings.Repeat("z", 1<<20) + "\nok\n"}, []string{"zzzzzzzz", "ok"}},
		{"nothing", 8, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			w := Lines(tt.max, func(l []byte) { got = append(got, string(l)) })
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
}
