package redact

import (
	"bytes"
	"slices"
)

// window is how far around a keyword a rule without a bound on its matches is
// run; a match that reaches a window's edge inside the line is run again on
// the whole line.
const window = 512

// find appends the spans of b that hold a secret: by the catalog's rules, and
// the values (words holds the catalog's keywords, then the values in lower
// case). A rule runs where one of its keywords is: on the part of its line
// that a match holding the keyword can reach. It also reports whether b holds
// the start of a private key block. Without pathRules it leaves out the rules
// the catalog limits to some files.
func (c *catalog) find(b []byte, words *keywords, values []value, sc *scratch, pathRules bool) ([]span, bool) {
	out := sc.spans[:0]
	ls, le := 0, -1 // the current line
	type ran struct{ rule, to int }
	var done []ran // the rules run on the current line, and how far
	begin := false
	sc.hits = words.scan(b, sc.hits[:0], &sc.stripes)
	for _, h := range sc.hits {
		w, end := int(h.word), int(h.end)
		if w >= len(c.byWord) {
			// A secret value of the environment, in the case it has.
			v := values[w-len(c.byWord)]
			if start := end - len(v.secret); bytes.Equal(b[start:end], v.secret) {
				out = append(out, span{start, end, v.marker, start})
			}
			continue
		}
		begin = begin || w == c.begin
		if end > le {
			start := end - len(c.words.words[w])
			ls = bytes.LastIndexByte(b[:start], '\n') + 1
			le = len(b)
			if i := bytes.IndexByte(b[end:], '\n'); i >= 0 {
				le = end + i
			}
			done = done[:0]
		}
	next:
		for _, ri := range c.byWord[w] {
			for _, d := range done {
				if d.rule == ri && end <= d.to {
					continue next
				}
			}
			if !pathRules && c.rules[ri].spec.Path != "" {
				continue
			}
			r := c.rules[ri].load()
			reach := r.reach
			if reach == 0 {
				reach = window
			}
			start := end - len(c.words.words[w])
			if r.at0 != nil {
				// Anchored at the keyword: the match is there or nowhere.
				out = c.at(r, b[ls:le], ls, start-ls, reach, out)
				continue
			}
			from, to := max(ls, start-reach), min(le, end+reach)
			if r.near != nil {
				if slices.Contains(r.names, c.words.words[w]) {
					out = c.nearby(r, b[ls:le], ls, start-ls, end-ls, out)
					continue
				}
				// A keyword in the secret: the rule's name is a little before.
				from := max(ls, start-r.back)
				for _, m := range r.name.FindAllIndex(b[from:start], -1) {
					out = c.nearby(r, b[ls:le], ls, from+m[0]-ls, from+m[1]-ls, out)
				}
				continue
			}
			if r.needs != nil && !holdsAll(b[from:to], r.needs) {
				continue
			}
			done = append(done, ran{ri, to})
			out = c.run(r, b[ls:le], ls, from-ls, to-ls, true, out)
		}
	}
	sc.spans = out
	return out, begin
}

// at applies a rule anchored at its keyword, at line[start:], within reach
// of it (again without that bound when the match reaches it).
func (c *catalog) at(r *rule, line []byte, off, start, reach int, out []span) []span {
	if r.boundary && start > 0 && wordByte(line[start-1]) && wordByte(line[start]) {
		return out // no \b there
	}
	if !hasPrefix(line[start:], r.lits, r.fold) {
		return out // the keyword, in a case the rule does not take
	}
	from, re := start, r.at0
	if start > 0 {
		from, re = start-1, r.at1
	}
	to := min(len(line), start+reach)
	m := re.FindSubmatchIndex(line[from:to])
	if to < len(line) && (m != nil && m[1] == to-from || m == nil && r.reach == 0) {
		// Cut short by the window, or a rule whose matches have no bound
		// that may need more of the line: try the whole line.
		to = len(line)
		m = re.FindSubmatchIndex(line[from:to])
	}
	if m == nil {
		return out
	}
	if start > 0 {
		m[0]++ // the byte before the keyword is not the match's
	}
	if s, e, ok := c.secret(r, line, from, m); ok {
		out = append(out, span{off + s, off + e, nil, off + from + m[0]})
	}
	return out
}

// wordByte reports the bytes of \w.
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// hasPrefix reports whether b starts with one of lits (in any ASCII case, with
// fold).
func hasPrefix(b []byte, lits []string, fold bool) bool {
	for _, l := range lits {
		if len(b) < len(l) {
			continue
		}
		if fold && bytes.EqualFold(b[:len(l)], []byte(l)) || !fold && string(b[:len(l)]) == l {
			return true
		}
	}
	return false
}

// leadByte reports the bytes of [\w.-].
func leadByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// run applies r to line[from:to] (line is at off in the text); with edges,
// again to the whole line when a match reaches a cut edge of the window.
func (c *catalog) run(r *rule, line []byte, off, from, to int, edges bool, out []span) []span {
	ms := r.re.FindAllSubmatchIndex(line[from:to], -1)
	if ms == nil && edges && r.reach == 0 && (from > 0 || to < len(line)) {
		return c.run(r, line, off, 0, len(line), false, out) // no bound: the whole line may be needed
	}
	for _, m := range ms {
		if edges && (m[0] == 0 && from > 0 || m[1] == to-from && to < len(line)) {
			return c.run(r, line, off, 0, len(line), false, out)
		}
		if s, e, ok := c.secret(r, line, from, m); ok {
			out = append(out, span{off + s, off + e, nil, off + from + m[0]})
		}
	}
	return out
}

// secret returns where in line a match's secret is (m is a match in line at
// off), when it is one.
func (c *catalog) secret(r *rule, b []byte, off int, m []int) (int, int, bool) {
	s, e := m[0], m[1]
	switch {
	case r.group > 0:
		s, e = m[2*r.group], m[2*r.group+1]
	case r.group == 0:
		for g := 1; 2*g < len(m); g++ {
			if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
				s, e = m[2*g], m[2*g+1]
				break
			}
		}
	}
	if s < 0 || e <= s {
		return 0, 0, false
	}
	sec := b[off+s : off+e]
	if e := r.spec.Entropy; e > 0 && entropy(sec) <= e {
		return 0, 0, false
	}
	match, line := b[off+m[0]:off+m[1]], b
	if allowed(c.global(), sec, match, line) || allowed(r.allow, sec, match, line) {
		return 0, 0, false
	}
	return off + s, off + e, true
}

func allowed(lists []allowlist, sec, match, line []byte) bool {
	for _, a := range lists {
		target := sec
		switch a.target {
		case "match":
			target = match
		case "line":
			target = line
		}
		stop := a.stop != nil && a.stop.any(sec)
		if !a.and && stop {
			return true
		}
		if a.and && a.stop != nil && !stop {
			continue
		}
		if a.re == nil && a.and || matchAny(a.re, target) {
			return true
		}
	}
	return false
}

// matchAny reports whether one of the pieces matches b.
func matchAny(pieces []piece, b []byte) bool {
	for _, p := range pieces {
		if (p.needs == nil || holdsAll(b, p.needs)) && p.re.Match(b) {
			return true
		}
	}
	return false
}
