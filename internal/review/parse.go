package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/evidence"
)

// ErrNoVerdict reports output that holds no JSON object with a verdict.
var ErrNoVerdict = errors.New("no JSON object with a \"verdict\" field")

// maxParse bounds the output Parse reads; beyond it the end is kept, since the
// verdict comes last.
const maxParse = 256 << 10

// maxAttempts bounds how many '{' Parse tries to decode from, and maxDecode
// the bytes it hands the JSON decoder in all.
const (
	maxAttempts = 1024
	maxDecode   = 4 << 20
)

// Parse reads the reviewer's verdict from its output: a JSON object given plainly,
// inside a ```json fence, after prose, or inside the text of an agent CLI's JSON
// event (a claude stream-json "result", for one). When several objects carry a
// verdict, the last valid one wins. The verdict is validated: verdict approve,
// request_changes or reject; score clamped to 0–10; tags normalized (unknown ones
// kept, see [UnknownTags]); findings with a severity of blocker, major, minor or
// nit and a message. The error says what was wrong.
func Parse(output string) (evidence.Review, error) {
	if len(output) > maxParse {
		output = output[len(output)-maxParse:]
	}
	r, err := parseText(output, 0)
	if err != nil {
		return evidence.Review{Verdict: evidence.VerdictUnknown}, fmt.Errorf("parse review: %w", err)
	}
	return r, nil
}

// parseText finds the verdict objects in text, looking into the nested objects
// and string fields of other JSON objects down to a small depth.
func parseText(text string, depth int) (evidence.Review, error) {
	p := parser{budget: maxDecode}
	p.scan(text, depth)
	if p.found == nil && p.lastErr == nil && trailingComma().MatchString(text) {
		// A common slip: a trailing comma before } or ]. Try once without.
		p = parser{budget: maxDecode}
		p.scan(trailingComma().ReplaceAllString(text, "$1"), depth)
	}
	if p.found != nil {
		return *p.found, nil
	}
	if p.lastErr != nil {
		return evidence.Review{}, p.lastErr
	}
	return evidence.Review{}, fmt.Errorf("%w in the output (%d bytes)", ErrNoVerdict, len(text))
}

var trailingComma = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`,(\s*[}\]])`) })

// parser looks for the last valid verdict. It tries the '{' of the text from the
// end backwards, so the first valid verdict it meets is the last one written and
// long prose or code before it costs nothing; attempts and decoded bytes are
// bounded whatever the input.
type parser struct {
	found    *evidence.Review
	lastErr  error // of the last invalid verdict object, when no valid one follows it
	attempts int
	budget   int // bytes the JSON decoder may still be given
}

// scan reports whether it found a valid verdict.
func (p *parser) scan(text string, depth int) bool {
	for i := len(text) - 1; i >= 0; i-- {
		if text[i] != '{' {
			continue
		}
		if p.attempts >= maxAttempts || p.budget <= 0 {
			return false
		}
		p.attempts++
		p.budget -= len(text) - i
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			continue
		}
		if p.walk(v, depth, 0) {
			return true
		}
	}
	return false
}

// walk visits a decoded value: an object with a verdict is a candidate; other
// objects and arrays are searched, and strings that mention a verdict scanned.
func (p *parser) walk(v any, depth, level int) bool {
	if level > 8 {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		if _, has := x["verdict"]; has {
			r, err := validate(x)
			if err != nil {
				if p.lastErr == nil {
					p.lastErr = err
				}
				return false
			}
			p.found = &r
			return true
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if p.walk(x[k], depth, level+1) {
				return true
			}
		}
	case []any:
		for i := len(x) - 1; i >= 0; i-- {
			if p.walk(x[i], depth, level+1) {
				return true
			}
		}
	case string:
		if depth < 2 && strings.Contains(x, "verdict") {
			return p.scan(x, depth+1)
		}
	}
	return false
}
