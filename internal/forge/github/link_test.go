package github

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParseLink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want map[string]string
	}{
		{"", map[string]string{}},
		{`<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=5>; rel="last"`,
			map[string]string{"next": "https://api.github.com/repositories/1/issues?page=2", "last": "https://api.github.com/repositories/1/issues?page=5"}},
		// A URL with commas (labels=a,b), a relation unquoted, spaces.
		{`<https://h/api/v3/repos/o/r/issues?labels=a,b&page=3>;rel=next ,  <https://h/x?page=1> ; rel="first"`,
			map[string]string{"next": "https://h/api/v3/repos/o/r/issues?labels=a,b&page=3", "first": "https://h/x?page=1"}},
		// Several relations in one, other parameters, a quoted comma.
		{`<u1>; title="a, b"; rel="prev first", <u2>; rel="next"`, map[string]string{"prev": "u1", "first": "u1", "next": "u2"}},
		// The first of a relation named twice wins.
		{`<u1>; rel="next", <u2>; rel="next"`, map[string]string{"next": "u1"}},
		// Broken: what came before is kept.
		{`<u1>; rel="next", <u2; rel="last"`, map[string]string{"next": "u1"}},
		{`<u1>; rel="next`, map[string]string{}},
		{`u1; rel="next"`, map[string]string{}},
		{`<u1>; rel="next"; ;x, <u2>; rel=last`, map[string]string{"next": "u1", "last": "u2"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, parseLink(tt.in)); diff != "" {
			t.Errorf("parseLink(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// FuzzParseLink: any header reads without a panic; a header written from
// URLs reads back to them.
func FuzzParseLink(f *testing.F) {
	f.Add(`<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=9>; rel="last"`, "https://h/a?labels=a,b")
	f.Add(`<a>;rel=next;;,<`, "u")
	f.Add(`<>; rel=""`, "")
	f.Fuzz(func(t *testing.T, h, u string) {
		for rel, target := range parseLink(h) {
			if rel == "" || strings.ContainsAny(rel, " \t") || strings.Contains(target, ">") {
				t.Fatalf("parseLink(%q) gives %q → %q", h, rel, target)
			}
		}
		if strings.ContainsAny(u, "<>") || !utf8.ValidString(u) {
			return
		}
		written := `<` + u + `>; rel="next", <` + u + `&last>; rel="last"`
		got := parseLink(written)
		if got["next"] != u || got["last"] != u+"&last" {
			t.Fatalf("parseLink(%q) = %q", written, got)
		}
	})
}

func TestTail(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 10) + "\nline two\nline three\n"
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"short", "a\nb\n", 10, "a\nb\n"},
		{"from a whole line", long, 22, "line two\nline three\n"},
		{"one long line is cut", strings.Repeat("y", 20), 5, "yyyyy"},
		{"a rune not cut", "ab\n" + strings.Repeat("é", 4), 7, "ééé"},
		{"a rune cut at the start dropped", "ab\n\U0001F600xy", 5, "xy"},
		{"invalid bytes", "ok\xff\n", 10, "ok\uFFFD\n"},
		{"nothing kept", "abc", 0, ""},
	}
	for _, tt := range tests {
		got, err := readTail(strings.NewReader(tt.in), tt.n)
		if err != nil || got != tt.want {
			t.Errorf("%s: readTail(%q, %d) = %q, %v; want %q", tt.name, tt.in, tt.n, got, err, tt.want)
		}
	}
	// A log longer than the reader's window keeps its end.
	big := strings.Repeat("0123456789abcde\n", 100_000) + "the failure\n"
	got, err := readTail(strings.NewReader(big), logTailBytes)
	if err != nil || !strings.HasSuffix(got, "\nthe failure\n") || len(got) > logTailBytes || !strings.HasPrefix(got, "0123456789abcde\n") {
		t.Errorf("readTail(1.6 MB) = %d bytes ending %q, %v", len(got), got[max(0, len(got)-20):], err)
	}
}

// FuzzTail: the tail is valid UTF-8 within n bytes, and of a valid log it
// is an end of the log.
func FuzzTail(f *testing.F) {
	f.Add("line one\nline two\n", 9)
	f.Add("\xff\xfe\n\xe2\x82", 3)
	f.Add(strings.Repeat("é", 50), 7)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 1 << 12
		got, err := readTail(strings.NewReader(s), n)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(got) || len(got) > max(n, 0) {
			t.Fatalf("readTail(%q, %d) = %q: not valid UTF-8 within %d bytes", s, n, got, n)
		}
		if utf8.ValidString(s) && !strings.HasSuffix(s, got) {
			t.Fatalf("readTail(%q, %d) = %q: not an end of the log", s, n, got)
		}
	})
}
