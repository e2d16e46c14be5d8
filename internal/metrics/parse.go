package metrics

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
)

// Scrape is the text format read back by [Parse].
type Scrape struct {
	Types  map[string]string            // family → its TYPE
	Help   map[string]string            // family → its HELP, unescaped
	Values map[string]float64           // a sample's name and labels as written → its value
	Labels map[string]map[string]string // the same key → the sample's labels, unescaped
	names  map[string]string            // the same key → the sample's name
}

// Sum is the sum of the samples named name whose labels include every label
// of match.
func (s Scrape) Sum(name string, match Labels) float64 {
	var sum float64
	for k, v := range s.Values {
		if s.names[k] != name {
			continue
		}
		ok := true
		for ln, lv := range match {
			ok = ok && s.Labels[k][ln] == lv
		}
		if ok {
			sum += v
		}
	}
	return sum
}

// Parse reads the text exposition format strictly, as a scraper does: a
// family's TYPE before its samples, its samples together, valid names,
// quoted and escaped label values, no series twice, a histogram's buckets
// cumulative with increasing bounds, its count the +Inf bucket's. What
// [Registry.Write] writes parses.
func Parse(r io.Reader) (Scrape, error) {
	p := Scrape{Types: map[string]string{}, Help: map[string]string{}, Values: map[string]float64{}, Labels: map[string]map[string]string{}, names: map[string]string{}}
	done := map[string]bool{} // families whose samples ended
	current := ""
	type hist struct{ last, count float64 }
	hists := map[string]*hist{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			kw, rest, _ := strings.Cut(rest, " ")
			name, arg, _ := strings.Cut(rest, " ")
			if kw != "HELP" && kw != "TYPE" {
				continue // a comment
			}
			if !validName(name, true) {
				return p, fmt.Errorf("line %d: bad name %q", n, name)
			}
			if kw == "HELP" {
				p.Help[name] = strings.NewReplacer(`\\`, `\`, `\n`, "\n").Replace(arg)
				continue
			}
			if _, dup := p.Types[name]; dup {
				return p, fmt.Errorf("line %d: second TYPE of %s", n, name)
			}
			p.Types[name] = arg
			continue
		}
		sp := strings.LastIndexByte(line, ' ') // a label value may hold spaces; no timestamps are written
		if sp <= 0 {
			return p, fmt.Errorf("line %d: no value: %q", n, line)
		}
		key, value := line[:sp], line[sp+1:]
		name, labels, err := splitSample(key)
		if err != nil {
			return p, fmt.Errorf("line %d: %w", n, err)
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return p, fmt.Errorf("line %d: value: %w", n, err)
		}
		fam := name
		if p.Types[fam] == "" {
			for _, suf := range []string{"_bucket", "_sum", "_count"} {
				if b, ok := strings.CutSuffix(name, suf); ok && p.Types[b] == kindHistogram {
					fam = b
				}
			}
		}
		if p.Types[fam] == "" {
			return p, fmt.Errorf("line %d: sample of %s before its TYPE", n, fam)
		}
		if fam != current {
			if done[fam] {
				return p, fmt.Errorf("line %d: samples of %s are not together", n, fam)
			}
			done[current], current = true, fam
		}
		if _, dup := p.Values[key]; dup {
			return p, fmt.Errorf("line %d: series %s twice", n, key)
		}
		p.Values[key], p.Labels[key], p.names[key] = v, labels, name
		if p.Types[fam] != kindHistogram {
			continue
		}
		switch {
		case strings.HasSuffix(name, "_bucket"):
			le, err := strconv.ParseFloat(labels["le"], 64)
			if err != nil {
				return p, fmt.Errorf("line %d: le: %w", n, err)
			}
			rest := maps.Clone(labels)
			delete(rest, "le")
			series := fam + fmt.Sprint(rest)
			h := hists[series]
			if h == nil {
				h = &hist{last: -1}
				hists[series] = h
			}
			if le <= h.last || v < h.count {
				return p, fmt.Errorf("line %d: buckets of %s not increasing", n, series)
			}
			h.last, h.count = le, v
		case strings.HasSuffix(name, "_count"):
			if h := hists[fam+fmt.Sprint(labels)]; h == nil || h.count != v {
				return p, fmt.Errorf("line %d: count %v is not the +Inf bucket's", n, v)
			}
		}
	}
	return p, sc.Err()
}

// splitSample splits name{a="b",…} into its name and unescaped labels.
func splitSample(key string) (string, map[string]string, error) {
	name, rest, ok := strings.Cut(key, "{")
	if !validName(name, true) {
		return "", nil, fmt.Errorf("bad metric name %q", name)
	}
	labels := map[string]string{}
	if !ok {
		return name, labels, nil
	}
	for rest != "}" {
		ln, r, ok := strings.Cut(rest, `="`)
		if !ok || !validName(ln, false) {
			return "", nil, fmt.Errorf("bad label in %q", key)
		}
		var v strings.Builder
		i := 0
		for ; i < len(r) && r[i] != '"'; i++ {
			if r[i] != '\\' {
				v.WriteByte(r[i])
				continue
			}
			i++
			switch {
			case i == len(r):
				return "", nil, fmt.Errorf("cut escape in %q", key)
			case r[i] == 'n':
				v.WriteByte('\n')
			case r[i] == '\\' || r[i] == '"':
				v.WriteByte(r[i])
			default:
				return "", nil, fmt.Errorf("bad escape in %q", key)
			}
		}
		if i == len(r) {
			return "", nil, fmt.Errorf("unterminated value in %q", key)
		}
		labels[ln] = v.String()
		rest = strings.TrimPrefix(r[i+1:], ",")
		if rest == "" {
			return "", nil, fmt.Errorf("no closing brace in %q", key)
		}
	}
	return name, labels, nil
}

// validName reports whether s is a valid metric name (colons allowed) or
// label name.
func validName(s string, metric bool) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' || metric && c == ':'
		if !ok {
			return false
		}
	}
	return true
}
