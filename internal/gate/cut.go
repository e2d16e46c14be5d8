package gate

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/textcut"
)

// Cutting a cause's message to a few dozen runes so that what tells it apart
// survives: the label every assertion repeats goes first ("AssertionError:
// ", "assertion failed: "); a diff keeps its first removed and added lines
// from where they differ; a comparison ("assert 'usage: cli' == 'Usage:
// cli'", "expected '/a//b' to be '/a/b'") keeps its two sides from where
// they differ, the operator between them; anything else is cut at its end.

// assertLabelRE is the label an assertion library puts before every message
// it writes: it tells no cause from another.
var assertLabelRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:(?:java\.lang\.)?AssertionError(?: \[ERR_ASSERTION\])?|assertion failed|Assertion failed|AssertionFailedError|ComparisonFailure):\s+`)
})

// dropAssertLabel drops an assertion label from a message that says more
// after it.
func dropAssertLabel(msg string) string {
	if loc := assertLabelRE().FindStringIndex(msg); loc != nil && strings.TrimSpace(msg[loc[1]:]) != "" && !strings.HasPrefix(msg[loc[1]:], "|") {
		return msg[loc[1]:]
	}
	return msg
}

// builtinRE is pytest's repr of a bound method in its "+ where" lines.
var builtinRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`<(?:built-in )?(?:bound )?method (\w+) of (\w+) object at 0x[0-9a-f]+>`)
})

// isExplanation reports whether a line of a message is pytest's explanation
// of an assertion's values ("+ where X = f()", "+ and ..."), not a diff's.
func isExplanation(s string) bool {
	return strings.HasPrefix(s, "+ where ") || strings.HasPrefix(s, "+ and ")
}

// comparisonOps are the operators a failed comparison is written with, most
// telling first.
var comparisonOps = []string{
	" == ", " != ", " to deeply equal ", " to strictly equal ", " to equal ", " to be ",
	" not in ", " in ", " but was ", " to contain ", " to match ",
}

// comparison splits the first line of a message into what precedes the
// compared values ("assert ", "expected "), the values, the operator and
// the rest; ok is false when the line holds no comparison of two values.
func comparison(line string) (lead, left, op, right, rest string, ok bool) {
	for _, o := range comparisonOps {
		i := strings.Index(line, o)
		if i <= 0 {
			continue
		}
		ls := valueStart(line[:i])
		re := valueEnd(line[i+len(o):])
		if ls < 0 || re <= 0 {
			continue
		}
		return line[:ls], line[ls:i], o, line[i+len(o) : i+len(o)+re], line[i+len(o)+re:], true
	}
	return "", "", "", "", "", false
}

// literalRE is a value written as a word: a number or a constant (a word
// of a sentence is none: "expected token to contain userId").
var literalRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:-?[0-9][0-9.eE+_x-]*|true|false|True|False|None|null|nil|undefined|NaN)$`)
})

var closers = map[byte]byte{'\'': '\'', '"': '"', '`': '`', ']': '[', ')': '(', '}': '{', '>': '<'}

// valueStart is where the value s ends with starts: a quoted string, a
// bracketed list (brackets counted, quotes inside ignored: pytest nests
// them) or a literal ([literalRE]); -1 when s ends with none.
func valueStart(s string) int {
	if s == "" || s[len(s)-1] == ' ' {
		return -1
	}
	c := s[len(s)-1]
	open, ok := closers[c]
	if !ok {
		i := strings.LastIndexByte(s, ' ') + 1
		if !literalRE().MatchString(s[i:]) {
			return -1
		}
		return i
	}
	if open == c { // a quote: the nearest one before it that starts a word
		for i := len(s) - 2; i >= 0; i-- {
			if s[i] == c && (i == 0 || strings.IndexByte(" ([{=,:", s[i-1]) >= 0) {
				return i
			}
		}
		return -1
	}
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case c:
			depth++
		case open:
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// valueEnd is where the value s starts with ends (see [valueStart]); 0 when
// s starts with none.
func valueEnd(s string) int {
	if s == "" || s[0] == ' ' {
		return 0
	}
	c := s[0]
	var closer byte
	for k, v := range closers {
		if v == c {
			closer = k
		}
	}
	switch {
	case closer == 0:
		i := strings.IndexAny(s, " |")
		if i < 0 {
			i = len(s)
		}
		if !literalRE().MatchString(s[:i]) {
			return 0
		}
		return i
	case closer == c: // a quote: the next one that ends a word
		for i := 1; i < len(s); i++ {
			if s[i] == c && (i == len(s)-1 || strings.IndexByte(" )]},|:.", s[i+1]) >= 0) {
				return i + 1
			}
		}
		return 0
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case c:
			depth++
		case closer:
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}

// cutCause cuts a cause's message (its gist) to n runes, keeping what tells
// it apart (see the top of this file).
func cutCause(msg string, n int) string {
	if utf8.RuneCountInString(msg) <= n {
		return msg
	}
	msg = builtinRE().ReplaceAllString(dropAssertLabel(msg), "$2.$1")
	if utf8.RuneCountInString(msg) <= n {
		return msg
	}
	first, more, _ := strings.Cut(msg, " | ")
	if isDiffLine(first) {
		return cutDiff(msg, n)
	}
	lead, left, op, right, rest, ok := comparison(first)
	if !ok || n < 16 {
		return textcut.Runes(msg, n)
	}
	if more != "" {
		rest += " | " + more
	}
	return cutComparison(lead, left, op, right, rest, n)
}

// cutComparison writes a comparison in n runes: its two values each from
// where they differ, with the operator between; the lead when there is room
// for it beside what the values need to differ, and the rest when there is
// room for all. Values that print alike, or too little room to show where
// they differ, leave the message cut at its end.
func cutComparison(lead, left, op, right, rest string, n int) string {
	l, r := []rune(left), []rune(right)
	same := 0
	for same < len(l) && same < len(r) && l[same] == r[same] {
		same++
	}
	need := func(v []rune) int { return min(len(v), same+5) } // the first difference and a few runes after it
	body := n - utf8.RuneCountInString(op)
	if len(l) == len(r) && same == len(l) || need(l)+need(r) > body {
		// Sides that print alike (cut by the runner), or no room to show
		// where they differ: the message as it reads.
		return textcut.Runes(lead+left+op+right+rest, n)
	}
	if utf8.RuneCountInString(lead)+need(l)+need(r) > body {
		lead = ""
	}
	body -= utf8.RuneCountInString(lead)
	if whole := len(l) + len(r); whole <= body {
		return lead + left + op + right + textcut.Runes(rest, body-whole)
	}
	half := body / 2
	// A short side gives the other what it does not use.
	hl, hr := half, body-half
	switch {
	case len(l) < hl:
		hl, hr = len(l), body-len(l)
	case len(r) < hr:
		hl, hr = body-len(r), len(r)
	}
	return lead + diffSide("", l, same, hl) + op + diffSide("", r, same, hr)
}

// cutDiff cuts a diff's gist to n runes: its first removed and first added
// lines, each given half the room and started near where they differ
// ("-…tests=\"59\" failures… | +…tests=\"64\"…").
func cutDiff(msg string, n int) string {
	segs := strings.Split(msg, " | ")
	minus, plus := -1, -1
	for i, s := range segs {
		switch {
		case minus < 0 && strings.HasPrefix(s, "-") && isDiffLine(s):
			minus = i
		case plus < 0 && strings.HasPrefix(s, "+") && isDiffLine(s):
			plus = i
		}
	}
	if minus < 0 || plus < 0 || min(minus, plus) > 0 || n < 13 {
		return textcut.Runes(msg, n)
	}
	a, b := []rune(segs[minus][1:]), []rune(segs[plus][1:])
	same := 0
	for same < len(a) && same < len(b) && a[same] == b[same] {
		same++
	}
	half := (n - 3) / 2
	return diffSide(segs[minus][:1], a, same, half) + " | " + diffSide(segs[plus][:1], b, same, n-3-half)
}

// diffSide writes one side of a diff or comparison in h runes: sign and
// line, started at the earliest word (after " ,;(_=<[{:/") from which the
// first difference, at rune same, still shows; what is left out either end
// is "…".
func diffSide(sign string, r []rune, same, h int) string {
	if utf8.RuneCountInString(sign)+len(r) <= h || same+3 <= h {
		return textcut.Runes(sign+string(r), h)
	}
	start := max(0, same-(h-4))
	for p := start; p < same; p++ {
		if p > 0 && strings.ContainsRune(" ,;(_=<[{:/", r[p-1]) {
			start = p
			break
		}
	}
	return textcut.Runes(sign+"…"+string(r[start:]), h)
}
