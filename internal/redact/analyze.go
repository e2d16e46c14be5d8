package redact

import (
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
