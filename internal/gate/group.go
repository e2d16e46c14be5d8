package gate

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/textcut"
)

// A big failure is told in a few lines: its count in words, the causes that
// many tests share said once each with the count, the distinct messages with
// their file:line, then every failing test by name, grouped by package or file
// and by test (subtests folded under their parent), until the budget runs
// out; what does not fit is counted in its group.

// unitNoun is what a failure's unit is called: a Go package, a test file, …
func unitNoun(f evidence.Finding) string {
	switch {
	case f.Tool == "go" || (f.Tool == "junit" && strings.Contains(f.Unit, "/") && !strings.Contains(f.Unit, ".")):
		return "package"
	case f.Tool == "cargo":
		return "target"
	case f.Tool == "junit" && !strings.Contains(f.Unit, "/"):
		return "class"
	}
	return "file"
}

// unitLabel names a failure's unit as its id does ("calc" for a Go test whose
// id is calc.TestAdd, the file for the others); "" when it has none.
func unitLabel(f evidence.Finding) string {
	if f.Test != "" && strings.HasSuffix(f.ID, f.Test) && len(f.ID) > len(f.Test) {
		return strings.TrimRight(strings.TrimSuffix(f.ID, f.Test), ". ›:")
	}
	return f.Unit
}

// testName is a failure's test name inside its unit.
func testName(f evidence.Finding) string {
	if f.Test != "" {
		return f.Test
	}
	return f.ID
}

// splitTest cuts a test name into its parent and the rest: a Go subtest
// (TestRead/quoted), a describe block (auth › login), a pytest class or
// parameter (TestAuth::test_login, test_x[a]), a Rust module (tests::adds).
func splitTest(name string) (string, string) {
	best, sep := -1, ""
	for _, s := range []string{"/", " › ", "::", "["} {
		i := strings.Index(name, s)
		if s == " › " {
			i = strings.LastIndex(name, s) // a test's describe blocks are its parent
		}
		if i > 0 && (best < 0 || i < best) {
			best, sep = i, s
		}
	}
	if best < 0 {
		return name, ""
	}
	rest := name[best+len(sep):]
	if sep == "[" {
		rest = strings.TrimSuffix(rest, "]")
	}
	return name[:best], rest
}

// testCount says how many failing tests there are and where, in words:
// "29 failing tests in 3 packages", "1 failing test (crashed)".
func testCount(fs []evidence.Finding) string {
	units := map[string]bool{}
	crashed, timedOut := 0, 0
	noun := ""
	for _, f := range fs {
		units[unitLabel(f)] = true
		if noun == "" {
			noun = unitNoun(f)
		}
		switch f.Kind {
		case evidence.KindCrash:
			crashed++
		case evidence.KindTimeout:
			timedOut++
		}
	}
	s := countNoun(len(fs), "failing test")
	var how []string
	if crashed > 0 {
		how = append(how, fmt.Sprintf("%d crashed", crashed))
	}
	if timedOut > 0 {
		how = append(how, fmt.Sprintf("%d timed out", timedOut))
	}
	if len(how) > 0 {
		s += " (" + strings.Join(how, ", ") + ")"
	}
	if len(units) > 1 {
		s += " in " + countNoun(len(units), noun)
	}
	return s
}

// nameGroup is one unit's failing tests, folded by parent.
type nameGroup struct {
	unit    string
	parents []string
	subs    map[string][]string // parent → subtest names (the parent's own failure is "")
}

// count is how many failing tests the group holds: each subtest, and a
// parent when it failed of its own.
func (g nameGroup) count() int { return g.countFrom(0) }

// countFrom counts the failing tests of the parents from the i-th on.
func (g nameGroup) countFrom(i int) int {
	n := 0
	for _, p := range g.parents[i:] {
		n += len(g.subs[p]) // a parent's own failure is its "" entry
	}
	return n
}

func groupNames(fs []evidence.Finding) []nameGroup {
	var out []nameGroup
	at := map[string]int{}
	for _, f := range fs {
		u := unitLabel(f)
		i, ok := at[u]
		if !ok {
			i = len(out)
			at[u] = i
			out = append(out, nameGroup{unit: u, subs: map[string][]string{}})
		}
		g := &out[i]
		parent, sub := splitTest(testName(f))
		if _, seen := g.subs[parent]; !seen {
			g.parents = append(g.parents, parent)
		}
		g.subs[parent] = append(g.subs[parent], sub)
	}
	return out
}

// line writes a unit's tests within room runes (0: "- calc: 3 tests"): "- calc: TestTable{2+2,
// 3+3}, TestLogin"; what does not fit is counted: a parent's subtests
// ("TestRead{Simple, CRLF, +31}"), the tests left ("+3 more", subtests
// counted one by one).
func (g nameGroup) line(room int) string {
	head := "- "
	if g.unit != "" {
		head += g.unit + ": "
	}
	if room <= 0 { // the compact form
		return head + countNoun(g.count(), "test")
	}
	out := head
	fits := func(s string) bool { return utf8.RuneCountInString(s) <= room }
	for i, p := range g.parents {
		subs := slices.DeleteFunc(slices.Clone(g.subs[p]), func(s string) bool { return s == "" })
		sep, tail := "", ""
		if i > 0 {
			sep = ", "
		}
		if i < len(g.parents)-1 {
			tail = fmt.Sprintf(", +%d more", g.countFrom(i+1))
		}
		entry := p
		if len(subs) > 0 {
			entry = p + "{" + strings.Join(subs, ", ") + "}"
			if !fits(out + sep + entry + tail) {
				// As many subtests as fit, the rest counted.
				entry = ""
				for k := len(subs) - 1; k >= 0; k-- {
					e := p + "{" + strings.Join(subs[:k], ", ")
					if k > 0 {
						e += ", "
					}
					e += fmt.Sprintf("+%d}", len(subs)-k)
					if fits(out + sep + e + tail) {
						entry = e
						break
					}
				}
			}
		}
		if entry == "" || !fits(out+sep+entry+tail) {
			if i == 0 {
				return textcut.Runes(head+countNoun(g.count(), "test"), room)
			}
			return textcut.Runes(out+sep+fmt.Sprintf("+%d more", g.countFrom(i)), room)
		}
		out += sep + entry
	}
	return out
}

// groupedItems tells many failures within budget runes. Failures that are no
// test (build, lint) come first as numbered lines. Then the tests: each cause
// several share, once, with their count; each distinct message with its
// file:line, numbered from n+1 (every cause before any name: their messages
// are cut to fit, [fitCauses]); then, under "Failing tests:", every test
// not named yet, by unit and parent ([nameGroup.line]), until the budget runs
// out: the units left are counted in the last line, with the full log.
func groupedItems(items []item, n, budget int, logPath string, first bool) string {
	var other []item
	var tests []evidence.Finding
	for _, it := range items {
		if isTestKind(it.f.Kind) {
			tests = append(tests, it.f)
		} else {
			other = append(other, it)
		}
	}
	var b strings.Builder
	used := 0
	write := func(line string) {
		b.WriteString(line + "\n")
		used += utf8.RuneCountInString(line) + 1
	}
	if len(other) > 0 {
		room := budget
		if len(tests) > 0 {
			room = budget / 2
		}
		text, _ := listItems(other, n, room, logPath, first)
		b.WriteString(text)
		used += utf8.RuneCountInString(text)
		n += len(other)
	}
	if len(tests) == 0 {
		return b.String()
	}
	shared, distinct := causes(tests)
	named := map[string]bool{}
	var unnamed []evidence.Finding
	namesNeed := func() int {
		unnamed = unnamed[:0]
		for _, f := range tests {
			if !named[f.ID] {
				unnamed = append(unnamed, f)
			}
		}
		need := len("Failing tests:") + 1
		for _, g := range groupNames(unnamed) {
			need += utf8.RuneCountInString(g.line(1<<20)) + 1
		}
		return need
	}
	// Every cause gets a line before any test is named; the names keep room
	// for the shortest account of the tests left: their groups' counts, or
	// one line that counts them all.
	lines := causeTexts(shared, distinct, n)
	reserve := func(k int, least bool) int {
		clear(named)
		for _, l := range lines[:k] {
			if l.test != "" {
				named[l.test] = true
			}
		}
		full := namesNeed()
		if full <= len("Failing tests:")+1 {
			return 0
		}
		return min(full, namesMin(groupNames(unnamed), unitNoun(tests[0]), least))
	}
	k, width := fitCauses(lines, budget-used, reserve)
	clear(named)
	for _, l := range lines[:k] {
		write(l.line(width))
		if l.test != "" {
			named[l.test] = true
			n++
		}
	}
	if namesNeed() <= len("Failing tests:")+1 {
		return b.String()
	}
	groups := groupNames(unnamed)
	if budget-used < 40 {
		write(fmt.Sprintf("(+%s not named)", countNoun(len(unnamed), "test")))
		return b.String()
	}
	write("Failing tests:")
	noun := unitNoun(tests[0])
	// footer counts the groups from i on, with the full log when room allows.
	footer := func(i, room int) string {
		count := 0
		for _, x := range groups[i:] {
			count += x.count()
		}
		f := fmt.Sprintf("(+%s in %s", countNoun(count, "more test"), countNoun(len(groups)-i, noun))
		if withLog := f + "; full log: " + logPath + ")"; logPath != "" && utf8.RuneCountInString(withLog) <= room {
			return withLog
		}
		if utf8.RuneCountInString(f)+1 > room && room > 0 {
			return fmt.Sprintf("(+%d more)", count)
		}
		return f + ")"
	}
	// compact is what the groups from i on take as "- unit: N tests" lines.
	compact := func(i int) int {
		n := 0
		for _, x := range groups[i:] {
			n += utf8.RuneCountInString(x.line(0)) + 1
		}
		return n
	}
	for i, g := range groups {
		rest := 0
		if i < len(groups)-1 {
			rest = min(compact(i+1), utf8.RuneCountInString(footer(i+1, 0))+1)
		}
		room := budget - used - 1 - rest
		if room < utf8.RuneCountInString(g.line(0)) {
			write(textcut.Runes(footer(i, budget-used-1), max(budget-used-1, 0)))
			break
		}
		write(g.line(room))
	}
	return b.String()
}

// namesMin is the least room the names of groups take: "Failing tests:"
// and a line per group that counts its tests ("- testjson: 7 tests"), or,
// when that takes a dozen runes more or with least, one line that counts
// them all.
func namesMin(groups []nameGroup, noun string, least bool) int {
	head := len("Failing tests:") + 1
	compact, count := 0, 0
	for _, g := range groups {
		compact += utf8.RuneCountInString(g.line(0)) + 1
		count += g.count()
	}
	one := utf8.RuneCountInString(fmt.Sprintf("(+%s in %s)", countNoun(count, "more test"), countNoun(len(groups), noun))) + 1
	if compact <= one+12 && (!least || compact <= one) {
		return head + compact
	}
	return head + one
}
