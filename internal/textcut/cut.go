package textcut

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis ends a text that was cut.
const Ellipsis = "…"

// Runes is s in at most n runes: s itself when it fits, otherwise its first
// n-1 runes and [Ellipsis]. n < 1 leaves nothing.
func Runes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	i := 0
	for range n - 1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + Ellipsis
}

// Bytes is s in at most n bytes: s itself when it fits, otherwise the longest
// start of it that ends at a rune boundary and leaves room for [Ellipsis],
// then the ellipsis. n < len(Ellipsis) leaves nothing.
func Bytes(s string, n int) string { return BytesMarked(s, n, Ellipsis) }

// BytesMarked is [Bytes] with mark in place of [Ellipsis], for text that
// keeps to ASCII ("...").
func BytesMarked(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	end := n - len(mark)
	if end < 0 {
		return ""
	}
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + mark
}

// Line is s on one line: each run of white space (line breaks too) one space,
// none at either end.
func Line(s string) string { return strings.Join(strings.Fields(s), " ") }
