package redact

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Marker replaces a credential found by its shape; a variable's value is
// replaced by "[REDACTED:$NAME]", which names the variable, never the value.
const Marker = "[REDACTED]"

// MinValue is the shortest variable value that is redacted: shorter ones ("1",
// "true", a port) would blank out ordinary text.
const MinValue = 8

// SecretName reports whether an environment variable's name says it holds a
// secret.
func SecretName(name string) bool {
	n := strings.ToUpper(name)
	for _, s := range []string{"_API_KEY", "_APIKEY", "_TOKEN", "_SECRET", "_ACCESS_KEY", "_PRIVATE_KEY", "_CREDENTIALS", "_SECRET_KEY", "_AUTH"} {
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
	values []value
	words  *keywords // the catalog's keywords and the values; nil: the catalog's alone
}

type value struct {
	secret []byte
	marker []byte
}

// New returns a redactor for the credential shapes and the secret values of
// the environments given ("NAME=value" entries, as os.Environ returns them):
// agentloop's own and those it gives the processes it starts.
func New(environs ...[]string) *Redactor {
	r := &Redactor{}
	r.Add(environs...)
	return r
}

// With returns a redactor for r's secrets and those of more environments (r
// may be nil): r itself when they add none.
func (r *Redactor) With(environs ...[]string) *Redactor {
	out := &Redactor{}
	if r != nil {
		out.values = r.values
	}
	out.Add(environs...)
	if r != nil && len(out.values) == len(r.values) {
		return r
	}
	return out
}

// Add adds the secret values of more environments. It must not be called while
// the redactor is in use.
func (r *Redactor) Add(environs ...[]string) {
	r.values = append([]value(nil), r.values...)
	seen := map[string]bool{}
	for _, v := range r.values {
		seen[string(v.secret)] = true
	}
	for _, environ := range environs {
		for _, kv := range environ {
			name, v, ok := strings.Cut(kv, "=")
			v = strings.TrimSpace(v)
			if !ok || len(v) < MinValue || !SecretName(name) || seen[v] {
				continue
			}
			seen[v] = true
			marker := []byte("[REDACTED:$" + name + "]")
			r.values = append(r.values, value{secret: []byte(v), marker: marker})
			for _, e := range jsonForms(v) {
				if !seen[e] {
					seen[e] = true
					r.values = append(r.values, value{secret: []byte(e), marker: marker})
				}
			}
		}
	}
	r.words = rules().withValues(r.values)
}

// jsonForms returns v as it stands in a JSON string, when that differs from
// v: with & < > escaped (\u0026, as go test -json writes them) and without
// (as most JSON writers do), a quote and a backslash escaped in both.
func jsonForms(v string) []string {
	var out []string
	for _, html := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(v) != nil {
			continue
		}
		e := strings.TrimSuffix(b.String(), "\n")
		if e = e[1 : len(e)-1]; e != v && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// HasShape reports whether text holds a credential of a known shape, as
// gitleaks would report it (a rule the catalog limits to some files, such as
// Terraform's quoted passwords, does not count).
func HasShape(text string) bool {
	sp, _ := rules().find([]byte(text), rules().words, nil, &scratch{}, false)
	return len(sp) > 0 || pemBegin().MatchString(text)
}

// Bytes returns b with every secret replaced. It returns b itself, without
// copying, when there is none. A private key block is redacted whole, from its
// BEGIN line to its END line.
func (r *Redactor) Bytes(b []byte) []byte {
	var st state
	out, _ := r.redact(b, &st, 0, &scratch{})
	return out
}

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	return string(r.Bytes([]byte(s)))
}

// state is what redaction remembers from one piece of a stream to the next.
type state struct {
	inKey int // lines of a private key block seen, 0 outside one
}

// maxKeyLines ends a private key block that never shows its END line: the
// largest keys (RSA 16384 bits) take about 170 lines.
const maxKeyLines = 256

// pemBegin and pemEnd are the lines that open and close a private key block.
var (
	pemBegin = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`)
	})
	pemEnd = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`)
	})
)

// span is a part of the text to replace, what replaces it (nil: Marker), and
// where the match that found it starts (a rule's context before the secret:
// a piece of a long line is not cut inside it).
type span struct {
	s, e   int
	marker []byte
	from   int
}

// redact replaces the secrets of b, a run of whole lines, carrying st from
// one call to the next. What it returns is b itself or lives in sc until the
// next call with it. With hold > 0, b is a piece of a long line whose rest
// is still to come: it redacts and returns b only up to a point at least hold
// bytes before its end that no secret crosses, and how much of b that is.
func (r *Redactor) redact(b []byte, st *state, hold int, sc *scratch) ([]byte, int) {
	c, words, values := rules(), rules().words, []value(nil)
	if r != nil && r.words != nil {
		words, values = r.words, r.values
	}
	sp, begin := c.find(b, words, values, sc, true)
	if st.inKey > 0 || begin {
		if hold > 0 {
			cp := *st // a piece of a line: the line's end decides what follows
			sp = keyBlocks(b, &cp, sp)
		} else {
			sp = keyBlocks(b, st, sp)
		}
		sc.spans = sp
	}
	n := len(b)
	if hold > 0 {
		n -= hold
		for _, s := range sp {
			if start := min(s.s, s.from); start < n && s.e > n {
				n = start
			}
		}
		b = b[:n]
	}
	if len(sp) == 0 {
		return b, n
	}
	// By start, the longer first (a value that holds another wins), a
	// variable's name before a shape's marker.
	sort.Slice(sp, func(i, j int) bool {
		a, b := sp[i], sp[j]
		return a.s < b.s || a.s == b.s && (a.e > b.e || a.e == b.e && a.marker != nil && b.marker == nil)
	})
	out := sc.out[:0]
	at := 0
	for _, s := range sp {
		if s.e <= at || s.s >= n {
			continue
		}
		if s.s >= at {
			out = append(out, b[at:s.s]...)
			if s.marker == nil {
				out = append(out, Marker...)
			} else {
				out = append(out, s.marker...)
			}
		}
		at = s.e
	}
	sc.out = append(out, b[at:]...)
	return sc.out, n
}

// keyBlocks appends the spans of the private key blocks of b that run over
// several lines: from the BEGIN marker to the END marker, every line between
// whole (its line end kept). A block within one line (JSON-escaped) is the
// catalog's private-key rule's.
func keyBlocks(b []byte, st *state, sp []span) []span {
	for off := 0; off < len(b); {
		if st.inKey == 0 {
			// Outside a block only a BEGIN line matters: go to the next one.
			i := beginAt(b[off:])
			if i < 0 {
				break
			}
			off += bytes.LastIndexByte(b[off:off+i], '\n') + 1
		}
		end := len(b)
		if i := bytes.IndexByte(b[off:], '\n'); i >= 0 {
			end = off + i
		}
		line := b[off:end]
		if st.inKey > 0 {
			if m := pemEnd().FindIndex(line); m != nil {
				sp = append(sp, span{off, off + m[1], nil, off})
				st.inKey = 0
			} else {
				sp = append(sp, span{off, off + len(bytes.TrimRight(line, "\r")), nil, off})
				if st.inKey++; st.inKey > maxKeyLines {
					st.inKey = 0
				}
			}
		} else if m := pemBegin().FindIndex(line); m != nil && !pemEnd().Match(line[m[1]:]) {
			sp = append(sp, span{off + m[0], off + len(bytes.TrimRight(line, "\r")), nil, off + m[0]})
			st.inKey = 1
		}
		off = end + 1
	}
	return sp
}

// beginAt returns where the first "-----BEGIN" (any case) of b is, or -1.
func beginAt(b []byte) int {
	for at := 0; ; {
		i := bytes.Index(b[at:], []byte("-----"))
		if i < 0 {
			return -1
		}
		at += i
		if at+10 <= len(b) && bytes.EqualFold(b[at+5:at+10], []byte("begin")) {
			return at
		}
		at++
	}
}
