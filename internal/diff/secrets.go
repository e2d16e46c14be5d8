package diff

import (
	"math"
	"regexp"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/redact"
)

// An assignment of a literal to a name that says it holds a secret.
var secretAssign = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)((?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|credential|auth)[\w.-]*)["']?\s*(?::=|=>|==|=|:)\s*[\x60"']?([^\s"'\x60,;]{12,})`)
})

var dotted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$`) })

// countSecrets counts the added lines that carry a secret. It never keeps one.
func countSecrets(files []*fileDiff) int {
	n := 0
	for _, f := range files {
		for _, l := range f.Lines {
			if l.Op == '+' && hasSecret(l.Text) {
				n++
			}
		}
	}
	return n
}

// hasSecret reports whether a line holds a known credential shape, or assigns a
// random-looking literal to a secret-sounding name.
func hasSecret(text string) bool {
	if len(text) > 4096 {
		text = text[:4096]
	}
	if redact.HasShape(text) {
		return true
	}
	lower := strings.ToLower(text)
	if !containsAny(lower, "password", "passwd", "pwd", "secret", "token", "key", "credential", "auth") {
		return false
	}
	for _, m := range secretAssign().FindAllStringSubmatch(text, 4) {
		if strings.Contains(strings.ToLower(m[1]), "author") {
			continue
		}
		if v := m[2]; !placeholder(v) && entropy(v) >= 3.5 {
			return true
		}
	}
	return false
}

// placeholder reports values that are references or examples, not secrets.
func placeholder(v string) bool {
	lv := strings.ToLower(v)
	for _, s := range []string{"${", "{{", "$(", "(", "<", "%s", "env", "example", "placeholder", "changeme", "xxxx", "redacted", "dummy", "your"} {
		if strings.Contains(lv, s) {
			return true
		}
	}
	// Dotted identifiers (config.Token, os.Args) are code, not literals.
	return dotted().MatchString(v)
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h
}
