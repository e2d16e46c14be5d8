package agent

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Reasons are one line, cut on a rune boundary with an ellipsis; results are
// capped on a rune boundary.
func TestClipAndCap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"a  b\n\tc ", 10, "a b c"},
		{"abcdef", 6, "abcdef"},
		{"abcd\nefg", 7, "abcd…"}, // the ellipsis counts: 3 of the 7 bytes
		{"aé  xxx", 5, "a…"},      // é is 2 bytes: the cut would split it
		{"a日本x", 7, "a日…"},        // on a boundary
	} {
		if got := clip(tc.in, tc.n); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
	short := strings.Repeat("x", maxResult)
	if got := capResult(short); got != short {
		t.Errorf("capResult cut a result of exactly the cap (%d bytes)", len(got))
	}
	long := strings.Repeat("x", maxResult-1) + "é" + "zz"
	if got := capResult(long); got != long[:maxResult-1] || !utf8.ValidString(got) {
		t.Errorf("capResult = …%q (%d bytes), want the %d bytes before é", got[len(got)-4:], len(got), maxResult-1)
	}
}
