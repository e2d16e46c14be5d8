package gate

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// order sorts findings: by kind, the first of each kind before the rest, new before
// still failing, then by file and line.
func order(fs []evidence.Finding, d Delta) []evidence.Finding {
	still := map[string]bool{}
	for _, k := range d.Still {
		still[k] = true
	}
	s := append([]evidence.Finding(nil), fs...)
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if ra, rb := kindRank(a.Kind), kindRank(b.Kind); ra != rb {
			return ra < rb
		}
		if sa, sb := still[Key(a)], still[Key(b)]; sa != sb {
			return !sa
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	var firsts, rest []evidence.Finding
	for i, f := range s {
		if i == 0 || f.Kind != s[i-1].Kind {
			firsts = append(firsts, f)
		} else {
			rest = append(rest, f)
		}
	}
	return append(firsts, rest...)
}

// item is one numbered line: a finding and how many places say the same.
type item struct {
	f evidence.Finding
	n int
}

// collapse merges findings that say the same thing (kind, rule and normalized
// message) in several places into the first, counted; test failures are never merged.
func collapse(fs []evidence.Finding) []item {
	at := map[string]int{}
	var out []item
	for _, f := range fs {
		if isTestKind(f.Kind) {
			out = append(out, item{f, 1})
			continue
		}
		k := string(f.Kind) + "|" + f.ID + "|" + Normalize(f.Message)
		if i, ok := at[k]; ok {
			out[i].n++
			continue
		}
		at[k] = len(out)
		out = append(out, item{f, 1})
	}
	return out
}

// itemParts is "N. KIND id (file:line): " and the message.
func itemParts(n int, f evidence.Finding) (string, string) {
	p := fmt.Sprintf("%d. %s", n, strings.ToUpper(string(f.Kind)))
	if f.ID != "" {
		p += " " + f.ID
	}
	if f.File != "" {
		loc := f.File
		if f.Line > 0 {
			loc += ":" + strconv.Itoa(f.Line)
		}
		p += " (" + loc + ")"
	}
	return p + ": ", f.Message
}
