package redact

import (
	"math"
	"regexp"
	"sync"
)

//go:generate go run ./gengitleaks -o gitleaks_rules.go

// ruleSpec is a credential rule as a catalog writes it: gitleaks' semantics.
// The rule runs where one of its keywords is (any case); each match of Regex
// is a finding, its secret the SecretGroup (else the first group that matched,
// else the whole match), kept when its Shannon entropy is above Entropy and no
// allowlist lets it pass.
type ruleSpec struct {
	ID          string
	Regex       string
	SecretGroup int
	Entropy     float64
	Keywords    []string
	Allow       []allowSpec
	// Path is the catalog's limit to files whose name matches: the redactor
	// applies the rule to any text (output has no file name), HasShape does
	// not (a finding must be one gitleaks would report).
	Path string
	Note string // how the rule is applied here when that differs from the catalog
}

// allowSpec lets a finding pass when one of its Regexes matches the Target (the
// secret, "match" or "line") or the secret holds one of the Stopwords (lower
// case); with And, when both do.
type allowSpec struct {
	Target    string
	And       bool
	Regexes   []string
	Stopwords []string
}

// rule is a ruleSpec, compiled the first time one of its keywords is seen
// (most rules never are, and 225 expressions take a tenth of a second).
type rule struct {
	spec *ruleSpec
	once sync.Once

	re    *regexp.Regexp
	group int // the secret's group; 0: the first that matched; -1: the whole match
	allow []allowlist
	reach int // the longest match, or 0 when it has no bound
	// Every match of a rule that starts with one of its keywords starts where
	// the keyword does: at0 matches at the start of the text, at1 after its
	// first byte (the byte before the keyword, which \b looks at).
	at0, at1 *regexp.Regexp
	lits     []string // what such a match starts with, compared in any case when fold
	fold     bool
	boundary bool // and a word boundary before it
	// A rule that finds a keyword in context (gitleaks' semi-generic rules:
	// "…key… = value") is run as near, what follows its lead in the rule,
	// anchored at the keyword.
	near      *regexp.Regexp
	nearReach int
	names     []string // the keywords that are the name near starts with
	minValue  int      // the secret's least length, when it is a run of non-blanks; else 0
	// A keyword of such a rule that is not its name is in the secret: the
	// name is at most back bytes before it.
	name *regexp.Regexp
	back int
	// Any other rule runs only on a window that holds all the texts (lower
	// case) of one of needs, when it has any: what its matches must contain.
	needs [][]string
}

func (r *rule) load() *rule {
	r.once.Do(func() {
		s := r.spec
		r.re = regexp.MustCompile(s.Regex)
		r.group, r.reach = s.SecretGroup, reach(s.Regex)
		if r.group == 0 && r.re.NumSubexp() > 0 && allNamed(r.re) {
			r.group = -1 // named groups mark alternatives (jwt-base64's claims), not the secret
		}
		lits, fold, boundary, starts := keywordStart(s.Regex, s.Keywords)
		switch rest, name, names, minValue, ok := semiGeneric(s.Regex, s.Keywords); {
		case starts:
			r.at0 = regexp.MustCompile(`^(?:` + s.Regex + `)`)
			r.at1 = regexp.MustCompile(`^(?s:.)(?:` + s.Regex + `)`)
			r.lits, r.fold, r.boundary = lits, fold, boundary
		case ok:
			r.near, r.names, r.minValue = regexp.MustCompile(rest), names, minValue
			r.name, r.back = regexp.MustCompile(name), reach(name)+semiGenericGap
			if r.nearReach = reach(rest); r.nearReach == 0 {
				r.nearReach = nearWindow
			}
		default:
			r.needs = needs(s.Regex)
		}
		for _, a := range s.Allow {
			r.allow = append(r.allow, compileAllow(a))
		}
	})
	return r
}

type allowlist struct {
	target string
	and    bool
	re     []piece // the alternatives of its regexes
	stop   *keywords
}

// catalog is the rule set: gitleaks' and agentloop's own.
type catalog struct {
	rules  []*rule
	words  *keywords
	byWord [][]int // keyword → rules
	begin  int     // the keyword of a private key block's first line
	global func() []allowlist
}

// rules builds the catalog once, when the first redactor needs it.
var rules = sync.OnceValue(func() *catalog {
	return newCatalog(append(append([]ruleSpec(nil), gitleaksRules...), ownRules...), append(append([]allowSpec(nil), gitleaksGlobal...), ownGlobal...))
})

func newCatalog(specs []ruleSpec, global []allowSpec) *catalog {
	c := &catalog{global: sync.OnceValue(func() []allowlist {
		out := make([]allowlist, len(global))
		for i, a := range global {
			out[i] = compileAllow(a)
		}
		return out
	})}
	index := map[string]int{}
	var words []string
	for i := range specs {
		ri := len(c.rules)
		c.rules = append(c.rules, &rule{spec: &specs[i]})
		for _, k := range specs[i].Keywords {
			wi, ok := index[k]
			if !ok {
				wi = len(words)
				index[k] = wi
				words = append(words, k)
				c.byWord = append(c.byWord, nil)
			}
			c.byWord[wi] = append(c.byWord[wi], ri)
		}
	}
	c.words = newKeywords(words)
	c.begin = index[pemKeyword]
	if _, ok := index[pemKeyword]; !ok {
		c.begin = len(words)
		words = append(words, pemKeyword)
		c.byWord = append(c.byWord, nil)
		c.words = newKeywords(words)
	}
	return c
}

// asciiLower returns b with A-Z in lower case (the keywords' case).
func asciiLower(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return string(out)
}

// scratch is memory one redaction after another reuses.
type scratch struct {
	hits    []hit
	stripes [scanWays - 1][]hit // the hits of keywords.scan's parts after the first
	spans   []span
	out     []byte
}

// pemKeyword starts a private key block (the catalog's private-key keyword).
const pemKeyword = "-----begin"

// withValues returns the catalog's keywords followed by the values.
func (c *catalog) withValues(values []value) *keywords {
	if len(values) == 0 {
		return c.words
	}
	words := append([]string(nil), c.words.words...)
	for _, v := range values {
		words = append(words, asciiLower(v.secret))
	}
	return newKeywords(words)
}

func compileAllow(a allowSpec) allowlist {
	l := allowlist{target: a.Target, and: a.And}
	for _, x := range a.Regexes {
		l.re = append(l.re, alternatives(x)...)
	}
	if len(a.Stopwords) > 0 {
		l.stop = newKeywords(a.Stopwords)
	}
	return l
}

func allNamed(re *regexp.Regexp) bool {
	for _, n := range re.SubexpNames()[1:] {
		if n == "" {
			return false
		}
	}
	return true
}

// entropy is the Shannon entropy of b, in bits per byte.
func entropy(b []byte) float64 {
	var counts [256]int
	for _, c := range b {
		counts[c]++
	}
	h := 0.0
	n := float64(len(b))
	for _, k := range counts {
		if k > 0 {
			p := float64(k) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
