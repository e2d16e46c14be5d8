package redact

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// gitleaks' semi-generic rules, (?i)[\w.-]{0,50}?(?:NAME)…=…(SECRET)…, are
// most of its catalog and find a name in context: how they are run fast.

// semiGenericGap is the most a semi-generic rule puts between its name and
// its secret: [ \t\w.-]{0,20}[\s'"]{0,3}, an operator of up to 4 bytes,
// [\x60'"\s=]{0,5}.
const semiGenericGap = 20 + 3 + 4 + 5

// nearWindow is how far after its keyword a semi-generic rule whose matches
// have no bound is first tried: what follows the keyword either fails within
// it or matches up to its end (the rule's secret runs on, its last element
// accepts the end of the text), and is then tried on the whole line.
const nearWindow = 160

// semiGenericLead is how far before its keyword a semi-generic rule's match
// can start: its [\w.-]{0,50}?.
const semiGenericLead = 50

// semiGeneric recognises gitleaks' semi-generic rules,
// (?i)[\w.-]{0,50}?(?:NAME)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|…),…, and
// returns (?i)^(?:NAME)…: what must match where the name is for the rule to
// match there, and which of the keywords are the name (a match holds one of
// them where the name is; the others are in the secret), and the name.
func semiGeneric(expr string, keywords []string) (rest, name string, names []string, minValue int, ok bool) {
	const head = `(?i)[\w.-]{0,50}?(?:`
	const assign = `(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`
	if !strings.HasPrefix(expr, head) {
		return "", "", nil, 0, false
	}
	depth, class := 1, false
	for i := len(head); i < len(expr); i++ {
		switch c := expr[i]; {
		case c == '\\':
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth > 0 {
				continue
			}
			if !strings.HasPrefix(expr[i+1:], assign) {
				return "", "", nil, 0, false
			}
			minValue = valueLen(expr[i+1+len(assign):])
			name := regexp.MustCompile(`(?i)^(?:` + expr[len(head):i] + `)$`)
			for _, k := range keywords {
				if name.MatchString(k) {
					names = append(names, k)
				}
			}
			return `(?i)^(?:` + expr[len(head):], `(?i)(?:` + expr[len(head):i] + `)`, names, minValue, true
		}
	}
	return "", "", nil, 0, false
}

// valueLen returns, for what follows a semi-generic rule's operator
// ([\x60'"\s=]{0,5}(SECRET)(?:[\x60'"\s;]|\\[nr]|$)), the least length of its
// secret when no byte of it can be a blank, a quote, a backquote or ';' (so
// that the secret is a run of other bytes); else 0.
func valueLen(after string) int {
	const skip, end = `[\x60'"\s=]{0,5}`, `(?:[\x60'"\s;]|\\[nr]|$)`
	if !strings.HasPrefix(after, skip) || !strings.HasSuffix(after, end) {
		return 0
	}
	re, err := syntax.Parse(`(?i)`+strings.TrimSuffix(strings.TrimPrefix(after, skip), end), syntax.Perl)
	if err != nil || !avoids(re, " \t\n\r\v\f'\"`;") {
		return 0
	}
	return minLen(re)
}

// avoids reports whether no byte of a match of re can be one of set.
func avoids(re *syntax.Regexp, set string) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return !strings.ContainsAny(string(re.Rune), set)
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for _, c := range set {
				if re.Rune[i] <= c && c <= re.Rune[i+1] {
					return false
				}
			}
		}
		return true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	}
	for _, sub := range re.Sub {
		if !avoids(sub, set) {
			return false
		}
	}
	return true
}

// nearby applies a semi-generic rule where its keyword is, at line[start:]:
// near gives the keyword, what follows and the groups (the rule's groups:
// its lead, [\w.-]{0,50}?, has none), and the match starts where the run of
// [\w.-] before the keyword does, at most the lead before it, as the rule's
// lazy lead would.
func (c *catalog) nearby(r *rule, line []byte, off, start, end int, out []span) []span {
	if !assignsNear(line[end:], r.minValue) {
		return out
	}
	to := min(len(line), start+r.nearReach)
	m := r.near.FindSubmatchIndex(line[start:to])
	if m != nil && m[1] == to-start && to < len(line) {
		m = r.near.FindSubmatchIndex(line[start:]) // cut short by the window
	}
	if m == nil {
		return out
	}
	lead := 0
	for lead < semiGenericLead && start-lead > 0 && leadByte(line[start-lead-1]) {
		lead++
	}
	m[0] = -lead
	if s, e, ok := c.secret(r, line, start, m); ok {
		out = append(out, span{off + s, off + e, nil, off + start + m[0]})
	}
	return out
}

// assignsNear reports whether b, what follows a semi-generic rule's name,
// comes to an assignment's operator (=, >, :, |, ?, ,) after at most 40 bytes
// of the rest of the name ([\w]), [ \t\w.-] and [\s'"]; and, with value > 0,
// whether a run of value bytes that are no blank, quote, backquote or ';'
// follows it, after the rest of the operator and [\x60'"\s=]{0,5}. The rule's
// near would fail otherwise, only slower.
func assignsNear(b []byte, value int) bool {
	op := -1
	for i := 0; i < len(b) && i <= 40 && op < 0; i++ {
		switch c := b[i]; {
		case c == '=' || c == '>' || c == ':' || c == '|' || c == '?' || c == ',':
			op = i
		case leadByte(c) || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\'' || c == '"':
		default:
			return false
		}
	}
	if op < 0 {
		return false
	}
	if value == 0 {
		return true
	}
	// The secret starts after the rest of the operator and [\x60'"\s=]{0,5}:
	// blanks and quotes (no secret's bytes), and =:|>?, (perhaps the
	// secret's first).
	for i := op + 1; i <= op+10 && i < len(b); {
		for i < len(b) && i <= op+10 && blankOrQuote(b[i]) {
			i++
		}
		j, skippable := i, true
		for ; j < len(b) && !blankOrQuote(b[j]) && b[j] != ';'; j++ {
			if j-i+1 >= value {
				return true
			}
			skippable = skippable && strings.IndexByte("=:|>?,", b[j]) >= 0
		}
		if !skippable || j == i {
			return false
		}
		i = j
	}
	return false
}

func blankOrQuote(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\'' || c == '"' || c == '`'
}
