package redact

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

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
