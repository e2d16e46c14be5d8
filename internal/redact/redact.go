package redact

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
)

// Marker replaces a credential found by its shape; a variable's value is
// replaced by "[REDACTED:$NAME]", which names the variable, never the value.
const Marker = "[REDACTED]"

// A shape is a credential found by a fixed prefix and a run of characters of
// a set: what the well-known key formats look like. Scanning for the prefixes
// with bytes.Index and checking the run by hand is hundreds of times faster
// than a regular expression over every line an agent prints.
type shape struct {
	prefix string
	set    *[256]bool
	min    int // characters of set the prefix must be followed by
}

var (
	alnum      = charset("A-Za-z0-9")
	upperDigit = charset("A-Z0-9")
	word       = charset("A-Za-z0-9_")
	wordDash   = charset("A-Za-z0-9_-")
	alnumDash  = charset("A-Za-z0-9-")
)

// shapes are the credentials that are secrets whatever their context.
var shapes = []shape{
	{"AKIA", upperDigit, 16}, {"ASIA", upperDigit, 16}, {"ABIA", upperDigit, 16}, {"ACCA", upperDigit, 16}, // AWS access key ids
	{"ghp_", alnum, 36}, {"gho_", alnum, 36}, {"ghu_", alnum, 36}, {"ghs_", alnum, 36}, {"ghr_", alnum, 36}, // GitHub
	{"github_pat_", word, 22},
	{"xoxa-", alnumDash, 10}, {"xoxb-", alnumDash, 10}, {"xoxp-", alnumDash, 10}, {"xoxo-", alnumDash, 10}, {"xoxs-", alnumDash, 10}, {"xoxr-", alnumDash, 10}, // Slack
	{"sk-", wordDash, 20},                            // Anthropic (sk-ant-…), OpenAI (sk-…, sk-proj-…, sk-svcacct-…)
	{"AIza", wordDash, 35},                           // Google
	{"rk_live_", alnum, 20}, {"sk_live_", alnum, 20}, // Stripe
	{"glpat-", wordDash, 20}, // GitLab
	{"npm_", alnum, 36},
}

// rare are the shapes with a fixed hint that are matched by expression: they
// hardly ever occur, so the expression runs only where the hint is.
var rare = []struct {
	hint string
	re   *regexp.Regexp
}{
	{"PRIVATE KEY", regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)},
	{"hooks.slack.com", regexp.MustCompile(`hooks\.slack\.com/services/T[A-Za-z0-9_/]+`)},
}

func charset(ranges string) *[256]bool {
	var t [256]bool
	for i := 0; i < len(ranges); i++ {
		if i+2 < len(ranges) && ranges[i+1] == '-' {
			for c := ranges[i]; c <= ranges[i+2]; c++ {
				t[c] = true
			}
			i += 2
			continue
		}
		t[ranges[i]] = true
	}
	return &t
}

// spans returns the byte ranges of b that hold a credential of a known shape,
// in no particular order (they may overlap).
func spans(b []byte) [][2]int {
	var out [][2]int
	for _, s := range shapes {
		p := []byte(s.prefix)
		for from := 0; ; {
			i := bytes.Index(b[from:], p)
			if i < 0 {
				break
			}
			start := from + i
			end := start + len(p)
			for end < len(b) && s.set[b[end]] {
				end++
			}
			from = start + len(p)
			if start > 0 && word[b[start-1]] || end-start-len(p) < s.min {
				continue // inside a longer word, or too short to be a key
			}
			out = append(out, [2]int{start, end})
			from = end
		}
	}
	for _, r := range rare {
		if bytes.Contains(b, []byte(r.hint)) {
			for _, m := range r.re.FindAllIndex(b, -1) {
				out = append(out, [2]int{m[0], m[1]})
			}
		}
	}
	return out
}

// HasShape reports whether text holds a credential of a well-known shape.
func HasShape(text string) bool {
	return len(spans([]byte(text))) > 0
}

// MinValue is the shortest variable value that is redacted: shorter ones ("1",
// "true", a port) would blank out ordinary text.
const MinValue = 8

// SecretName reports whether an environment variable's name says it holds a
// secret.
func SecretName(name string) bool {
	n := strings.ToUpper(name)
	for _, s := range []string{"_API_KEY", "_APIKEY", "_TOKEN", "_SECRET", "_ACCESS_KEY", "_PRIVATE_KEY", "_CREDENTIALS"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	switch n {
	case "API_KEY", "APIKEY", "TOKEN", "SECRET":
		return true
	}
	return strings.Contains(n, "PASSWORD") || strings.Contains(n, "PASSWD")
}

// Redactor replaces secrets in text. The zero value and nil redact credential
// shapes only.
type Redactor struct {
	values []value // longest first, so a value containing another wins
}

type value struct {
	secret []byte
	marker []byte
}

// New returns a redactor for the credential shapes and the secret values of
// environ ("NAME=value" entries, as os.Environ returns them).
func New(environ []string) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	for _, kv := range environ {
		name, v, ok := strings.Cut(kv, "=")
		v = strings.TrimSpace(v)
		if !ok || len(v) < MinValue || !SecretName(name) || seen[v] {
			continue
		}
		seen[v] = true
		r.values = append(r.values, value{secret: []byte(v), marker: []byte("[REDACTED:$" + name + "]")})
	}
	sort.SliceStable(r.values, func(i, j int) bool { return len(r.values[i].secret) > len(r.values[j].secret) })
	return r
}

// Bytes returns b with every secret replaced. It returns b itself, without
// copying, when there is none.
func (r *Redactor) Bytes(b []byte) []byte {
	if r != nil {
		for _, v := range r.values {
			if bytes.Contains(b, v.secret) {
				b = bytes.ReplaceAll(b, v.secret, v.marker)
			}
		}
	}
	sp := spans(b)
	if len(sp) == 0 {
		return b
	}
	sort.Slice(sp, func(i, j int) bool { return sp[i][0] < sp[j][0] })
	out := make([]byte, 0, len(b))
	at := 0
	for _, s := range sp {
		if s[1] <= at {
			continue
		}
		if s[0] >= at {
			out = append(out, b[at:s[0]]...)
			out = append(out, Marker...)
		}
		at = s[1]
	}
	return append(out, b[at:]...)
}

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	b := r.Bytes([]byte(s))
	return string(b)
}
