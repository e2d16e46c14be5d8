package gate

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/textcut"
)

// The causes of a big failure: the message shapes several failing tests
// share, each said once with its count, and the messages that are a test's
// own, numbered with the test and its file:line. Every cause gets a line
// before any test is named: the messages are cut to fit them all.

var (
	quotedRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'[^']*'|` + "`[^`]*`") })
	bracketRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[[^\[\]]*\]`) })
)

// shape is what failures that fail the same way share: the first line of
// their message's gist (and a diff's first changed line) with values masked
// (numbers, quoted strings, bracketed lists, ids), without the label an
// assertion library puts before every message ("AssertionError: ").
func shape(f evidence.Finding) string {
	// A diff's first changed line counts by its first word: "-DONE 4 tests"
	// and "-DONE 2 runs" are one cause, "-TESTS_TOTAL=59" another.
	firstWord := func(s string) string {
		w, _, _ := strings.Cut(strings.TrimSpace(s[1:]), " ")
		return s[:1] + w
	}
	segs := strings.SplitN(dropAssertLabel(gist(f.Message)), " | ", 3)
	first := segs[0]
	switch {
	case isDiffLine(first):
		first = firstWord(first)
	case len(segs) > 1 && isDiffLine(segs[1]):
		first += " | " + firstWord(segs[1])
	}
	// A bracketed literal is a value, as a quoted string is: pytest's
	// "assert ['usage: cmd ...t 'ARG'.'] == [...]" (whose quotes nest).
	first = bracketRE().ReplaceAllString(first, "[<list>]")
	return string(f.Kind) + "|" + Normalize(quotedRE().ReplaceAllString(first, "<str>"))
}

// gist is the part of a message that says what failed: of a diff (lines
// joined by " | "), its first line and its changed lines, without the
// "--- expected", "+++ actual" and "@@" headers and the unchanged context.
func gist(msg string) string {
	segs := strings.Split(msg, " | ")
	diff := false
	var out []string
	for i, s := range segs {
		t := strings.TrimSpace(s)
		switch {
		case i == 0:
			out = append(out, s)
		case strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "+++ ") || strings.HasPrefix(t, "@@"):
			diff = true
		case isDiffLine(t):
			out = append(out, t)
		}
	}
	if !diff || len(out) == 1 {
		return msg
	}
	if t := strings.TrimSpace(out[0]); strings.HasSuffix(t, ":") && len(t) <= 24 {
		out = out[1:] // "assertion failed:" says nothing the diff does not
	}
	return strings.Join(out, " | ")
}

func isDiffLine(s string) bool {
	return (strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+")) && !strings.HasPrefix(s, "--- ") && !strings.HasPrefix(s, "+++ ") && !isExplanation(s)
}

// cause is a message shape that several failures share.
type cause struct {
	example evidence.Finding
	members []evidence.Finding
}

// causes sorts failures into the shapes that several share (most first) and
// the failures whose message is their own, in the order given. A failure
// with no message of its own ("failed") is neither: it is named only.
func causes(fs []evidence.Finding) (shared []cause, distinct []evidence.Finding) {
	by := map[string]int{}
	var all []cause
	for _, f := range fs {
		if m := strings.TrimSpace(f.Message); m == "" || strings.EqualFold(m, "failed") {
			continue
		}
		k := shape(f)
		if i, ok := by[k]; ok {
			all[i].members = append(all[i].members, f)
			continue
		}
		by[k] = len(all)
		all = append(all, cause{example: f, members: []evidence.Finding{f}})
	}
	for _, c := range all {
		if len(c.members) > 1 {
			shared = append(shared, c)
		} else {
			distinct = append(distinct, c.example)
		}
	}
	slices.SortStableFunc(shared, func(a, b cause) int { return len(b.members) - len(a.members) })
	return shared, distinct
}

// causeLine says a shared cause once: "29 tests alike, first TestRead/Quoted
// (reader_test.go:9): the message", naming the first test and its location
// (the others are named apart, or counted, and all are in the failures file
// the feedback names). The name goes between prefix and rest, cut to fit
// ([causeText.line]).
func causeLine(c cause) causeText {
	where := ""
	if loc := location(c.example); loc != "" {
		where = " (" + loc + ")"
	}
	return causeText{
		prefix: fmt.Sprintf("%d tests alike, first ", len(c.members)), name: testName(c.example),
		rest: where + ": ", msg: gist(c.example.Message),
	}
}

func location(f evidence.Finding) string {
	if f.File == "" {
		return ""
	}
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return f.File
}

// CauseCount is how many causes grouped feedback tells fs's failing tests
// apart by: the message shapes they share or own (a test without a message
// of its own has none).
func CauseCount(fs []evidence.Finding) int {
	var tests []evidence.Finding
	for _, f := range fs {
		if isTestKind(f.Kind) {
			tests = append(tests, f)
		}
	}
	shared, distinct := causes(tests)
	return len(shared) + len(distinct)
}

// causeText is one cause's line: its prefix, never cut ("3. pkg.TestX
// (file:line): "; "7 tests alike, first "), the name of a shared cause's
// first test and the rest of its prefix (" (file:line): "), and its
// message; the name and the message are cut to fit. test is the failure a
// numbered line names ("" for a shared cause).
type causeText struct {
	prefix, name, rest, msg, test string
}

// minCauseName is the least room, in runes, a shared cause's first test's
// name is cut to.
const minCauseName = 12

// nameWidth is the room a shared cause's first test's name gets when the
// messages are cut to width runes: half as much, not below minCauseName.
func nameWidth(width int) int { return max(minCauseName, width/2) }

// line writes the cause with its name and message cut as [fitCauses] found.
func (l causeText) line(width int) string {
	name := ""
	if l.name != "" {
		name = textcut.Runes(l.name, nameWidth(width))
	}
	return l.prefix + name + l.rest + cutCause(l.msg, width)
}

// causeTexts writes the causes' lines: the shared ones, then the distinct
// ones numbered from n+1.
func causeTexts(shared []cause, distinct []evidence.Finding, n int) []causeText {
	var out []causeText
	for _, c := range shared {
		out = append(out, causeLine(c))
	}
	for i, f := range distinct {
		g := f
		if g.Test != "" && g.File != "" && (strings.HasPrefix(g.ID, unitLabel(g)+" ") || sameFile(unitLabel(g), g.File)) {
			g.ID = g.Test // the location names the file
		}
		g.Message = gist(g.Message)
		prefix, msg := itemParts(n+i+1, g)
		if g.Kind == evidence.KindTest {
			prefix = strings.Replace(prefix, " TEST ", " ", 1) // the heading says these are tests
		}
		out = append(out, causeText{prefix: prefix, msg: msg, test: f.ID})
	}
	return out
}

// sameFile reports whether a unit is the file a location names (pytest's
// tests/test_x.py for tests/test_x.py::test_y at tests/test_x.py:12).
func sameFile(unit, file string) bool {
	return unit != "" && (unit == file || strings.HasSuffix(file, "/"+unit) || strings.HasSuffix(unit, "/"+file))
}

// Bounds of a cause's message, in runes: it is cut to fit every cause in
// before the names, but not below minCauseMsg (then the last causes are
// left out), nor given more than the larger of capCauseMsg and a budget's
// eighth while other causes or the names want room.
const (
	minCauseMsg = 20
	capCauseMsg = 80
)

// fitCauses finds how many of the lines (k, from the first) fit in room
// runes and the width their messages are cut to, leaving reserve(k, least)
// runes for the names of the tests they do not name: what the names would
// like, or, when that leaves a cause out, the least they take.
func fitCauses(lines []causeText, room int, reserve func(k int, least bool) int) (k, width int) {
	top := max(capCauseMsg, room/8)
	for k = len(lines); k > 0; k-- {
		fixed := 0
		for _, l := range lines[:k] {
			fixed += utf8.RuneCountInString(l.prefix+l.rest) + 1
		}
		for _, least := range []bool{false, true} {
			avail := room - reserve(k, least)
			for w := top; w >= minCauseMsg; w-- {
				need := fixed
				for _, l := range lines[:k] {
					need += min(utf8.RuneCountInString(l.msg), w)
					if l.name != "" {
						need += min(utf8.RuneCountInString(l.name), nameWidth(w))
					}
				}
				if need <= avail {
					return k, w
				}
			}
		}
	}
	return 0, 0
}
