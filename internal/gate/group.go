package gate

import (
	"fmt"
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
