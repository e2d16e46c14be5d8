package gate

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/textcut"
)

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
