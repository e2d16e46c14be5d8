package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	t.Parallel()
	ascii := func(s string, n int) string { return BytesMarked(s, n, "...") }
	for _, tc := range []struct {
		name string
		cut  func(string, int) string
		in   string
		n    int
		want string
	}{
		{"Runes", Runes, "", 0, ""},
		{"Runes", Runes, "", 3, ""},
		{"Runes", Runes, "abc", 3, "abc"},
		{"Runes", Runes, "abcd", 3, "ab…"},
		{"Runes", Runes, "abcd", 1, "…"},
		{"Runes", Runes, "abcd", 0, ""},
		{"Runes", Runes, "abcd", -1, ""},
		{"Runes", Runes, "日本語です", 5, "日本語です"}, // runes, not bytes: 15 bytes fit in 5
		{"Runes", Runes, "日本語です", 4, "日本語…"},
		{"Runes", Runes, "aé日", 2, "a…"},
		{"Bytes", Bytes, "", 0, ""},
		{"Bytes", Bytes, "abcdef", 6, "abcdef"},
		{"Bytes", Bytes, "abcdefg", 6, "abc…"}, // the ellipsis is 3 of the 6 bytes
		{"Bytes", Bytes, "abcdefg", 3, "…"},
		{"Bytes", Bytes, "abcdefg", 2, ""},
		{"Bytes", Bytes, "aé" + "xxxx", 5, "a…"}, // é is 2 bytes: the cut would split it
		{"Bytes", Bytes, "a日本" + "x", 6, "a…"},   // 日 is 3 bytes
		{"Bytes", Bytes, "a日本" + "x", 7, "a日…"},  // on a boundary
		{"BytesMarked ...", ascii, "aé" + "xxxx", 5, "a..."},
		{"BytesMarked ...", ascii, "abcdefg", 2, ""},
	} {
		if got := tc.cut(tc.in, tc.n); got != tc.want {
			t.Errorf("%s(%q, %d) = %q, want %q", tc.name, tc.in, tc.n, got, tc.want)
		}
	}
}

func TestLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                   "",
		"a  b\n\tc ":         "a b c",
		"\n first\r\nsecond": "first second",
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

// Whatever comes in, a cut keeps valid UTF-8 valid, stays within its bound,
// is s or a start of it and the ellipsis (or nothing), and leaves s whole
// when it fits.
func FuzzCut(f *testing.F) {
	for _, s := range []string{"", "abc", "aé日本語", "x\xffy", strings.Repeat("日", 40)} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 200
		for name, got := range map[string]string{"Runes": Runes(s, n), "Bytes": Bytes(s, n), "BytesMarked": BytesMarked(s, n, "...")} {
			if utf8.ValidString(s) && !utf8.ValidString(got) {
				t.Errorf("%s(%q, %d) = %q: not valid UTF-8", name, s, n, got)
			}
			mark := Ellipsis
			if name == "BytesMarked" {
				mark = "..."
			}
			cut := got == "" || strings.HasSuffix(got, mark) && strings.HasPrefix(s, strings.TrimSuffix(got, mark))
			if got != s && !cut {
				t.Errorf("%s(%q, %d) = %q: not s, nor nothing, nor a start of s and the ellipsis", name, s, n, got)
			}
		}
		if got := Runes(s, n); utf8.RuneCountInString(got) > max(n, 0) {
			t.Errorf("Runes(%q, %d) = %q: more than %d runes", s, n, got, n)
		} else if utf8.RuneCountInString(s) <= n && got != s {
			t.Errorf("Runes(%q, %d) = %q: cut what fits", s, n, got)
		}
		for _, got := range []string{Bytes(s, n), BytesMarked(s, n, "...")} {
			if len(got) > max(n, 0) {
				t.Errorf("Bytes(%q, %d) = %q: more than %d bytes", s, n, got, n)
			} else if len(s) <= n && got != s {
				t.Errorf("Bytes(%q, %d) = %q: cut what fits", s, n, got)
			}
		}
	})
}
