package redact

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// What a rule's regular expression tells before it runs: where its matches
// can start, how long they can be, what they must contain.

// keywordStart tells of a rule whose every match starts with one of its
// keywords (any case: ghp_…, \b(sk-ant-api03-…), (?:ghu|ghs)_…): the texts
// one of which a match starts with (to be compared in any case when fold), and
// whether the rule wants a word boundary before them.
func keywordStart(expr string, keywords []string) (lits []string, fold, boundary, ok bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, false, false, false
	}
	lits, _, fold = literals(re)
	if len(lits) == 0 {
		return nil, false, false, false
	}
	for _, l := range lits {
		if l == "" || !slices.ContainsFunc(keywords, func(k string) bool { return strings.HasPrefix(strings.ToLower(l), k) }) {
			return nil, false, false, false
		}
	}
	return lits, fold, startsWithBoundary(re), true
}

// startsWithBoundary reports an expression whose matches all start with \b.
func startsWithBoundary(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpWordBoundary:
		return true
	case syntax.OpCapture:
		return startsWithBoundary(re.Sub[0])
	case syntax.OpConcat:
		return len(re.Sub) > 0 && startsWithBoundary(re.Sub[0])
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !startsWithBoundary(sub) {
				return false
			}
		}
		return true
	}
	return false
}

// literals returns the texts a match of re can start with, whether they are
// the whole of what it matches (so that what follows extends them), and
// whether one is compared in any case. It gives up ("") past 64 texts.
func literals(re *syntax.Regexp) (set []string, whole, fold bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}, true, re.Flags&syntax.FoldCase != 0
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpBeginText, syntax.OpBeginLine:
		return []string{""}, true, false
	case syntax.OpCapture:
		return literals(re.Sub[0])
	case syntax.OpQuest:
		set, whole, fold := literals(re.Sub[0])
		return append(set, ""), whole, fold
	case syntax.OpCharClass:
		// A small class ([su], [pe]) is a choice of literals.
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1] && len(out) <= 8; r++ {
				out = append(out, string(r))
			}
		}
		if len(out) > 8 {
			return []string{""}, false, false
		}
		return out, true, false
	case syntax.OpPlus:
		set, _, fold := literals(re.Sub[0])
		return set, false, fold
	case syntax.OpRepeat:
		if re.Min == 0 {
			return []string{""}, false, false
		}
		set, _, fold := literals(re.Sub[0])
		return set, false, fold
	case syntax.OpAlternate:
		var out []string
		whole, fold := true, false
		for _, sub := range re.Sub {
			set, w, f := literals(sub)
			out = append(out, set...)
			whole, fold = whole && w, fold || f
		}
		if len(out) > 64 {
			return []string{""}, false, false
		}
		return out, whole, fold
	case syntax.OpConcat:
		out, fold := []string{""}, false
		for _, sub := range re.Sub {
			set, whole, f := literals(sub)
			var next []string
			for _, a := range out {
				for _, b := range set {
					next = append(next, a+b)
				}
			}
			if len(next) > 64 {
				return out, false, fold
			}
			out, fold = next, fold || f
			if !whole {
				return out, false, fold
			}
		}
		return out, true, fold
	}
	return []string{""}, false, false
}

// needs returns, for each alternative of expr, the texts (lower case, of at
// least 3 bytes) that a match of it must contain; nil when an alternative
// needs none.
func needs(expr string) [][]string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	return needsOf(re)
}

func needsOf(re *syntax.Regexp) [][]string {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	alts := []*syntax.Regexp{re}
	if re.Op == syntax.OpAlternate {
		alts = re.Sub
	}
	var out [][]string
	for _, a := range alts {
		lits := required(a)
		if len(lits) == 0 {
			return nil
		}
		out = append(out, lits)
	}
	return out
}

// alternatives splits expr into its top alternatives, each with what its
// matches must contain (see needs): an allowlist of forty alternatives run as
// one expression costs its whole automaton on every finding.
func alternatives(expr string) []piece {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return []piece{{re: regexp.MustCompile(expr)}}
	}
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpAlternate {
		subs = re.Sub
	}
	out := make([]piece, len(subs))
	for i, sub := range subs {
		out[i] = piece{re: regexp.MustCompile(sub.String()), needs: needsOf(sub)}
	}
	return out
}

// piece is one alternative of an allowlist's expressions.
type piece struct {
	re    *regexp.Regexp
	needs [][]string
}

func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if l := strings.ToLower(string(re.Rune)); len(l) >= 3 {
			return []string{l}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var out []string
		for _, sub := range re.Sub {
			out = append(out, required(sub)...)
		}
		return out
	}
	return nil
}

// holdsAll reports whether b holds, in any case, all the texts of one of sets.
func holdsAll(b []byte, sets [][]string) bool {
	for _, set := range sets {
		all := true
		for _, t := range set {
			if !containsFold(b, t) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// containsFold reports whether b holds t (lower case ASCII) in any case.
func containsFold(b []byte, t string) bool {
	first := t[0]
	for i := 0; i+len(t) <= len(b); i++ {
		if c := b[i] | 0x20; c != first && b[i] != first {
			continue
		}
		j := 1
		for ; j < len(t); j++ {
			c := b[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != t[j] {
				break
			}
		}
		if j == len(t) {
			return true
		}
	}
	return false
}

// minLen is the shortest text re can match, in bytes.
func minLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(string(re.Rune))
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minLen(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minLen(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += minLen(sub)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, sub := range re.Sub {
			if m := minLen(sub); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	}
	return 0
}

// reach is the longest text re can match, in bytes, or 0 when unbounded.
func reach(expr string) int {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return 0
	}
	n := maxLen(re.Simplify())
	if n < 0 {
		return 0
	}
	return n
}

func maxLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += len(string(r))
		}
		return n
	case syntax.OpCharClass:
		if re.Rune[len(re.Rune)-1] < 0x80 {
			return 1 // ASCII
		}
		return 4 // a rune
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 4
	case syntax.OpCapture, syntax.OpQuest:
		return maxLen(re.Sub[0])
	case syntax.OpConcat, syntax.OpAlternate:
		t := 0
		for _, s := range re.Sub {
			m := maxLen(s)
			if m < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				t += m
			} else {
				t = max(t, m)
			}
		}
		return t
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		m := maxLen(re.Sub[0])
		if re.Max < 0 || m < 0 {
			return -1
		}
		return m * re.Max
	}
	return 0
}
