package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// Tags the reviewer may attach to a verdict. The decision engine escalates on
// security, scope_creep, architecture and requirements_conflict.
const (
	TagSecurity             = "security"
	TagScopeCreep           = "scope_creep"
	TagArchitecture         = "architecture"
	TagRequirementsConflict = "requirements_conflict"
	TagTestTampering        = "test_tampering"
	TagMissingContext       = "missing_context"
	TagNeedsHuman           = "needs_human"
)

// Finding severities.
const (
	SeverityBlocker = "blocker"
	SeverityMajor   = "major"
	SeverityMinor   = "minor"
	SeverityNit     = "nit"
)

// KnownTags lists the tags of the reviewer contract, in the order prompts show them.
func KnownTags() []string {
	return []string{TagSecurity, TagScopeCreep, TagArchitecture, TagRequirementsConflict, TagTestTampering, TagMissingContext, TagNeedsHuman}
}

// KnownTag reports whether tag is part of the reviewer contract.
func KnownTag(tag string) bool {
	for _, k := range KnownTags() {
		if k == tag {
			return true
		}
	}
	return false
}

// UnknownTags returns the tags of r outside the contract. [Parse] keeps them (a
// person may learn from them) but the decision engine must not act on them.
func UnknownTags(r evidence.Review) []string {
	var out []string
	for _, t := range r.Tags {
		if !KnownTag(t) {
			out = append(out, t)
		}
	}
	return out
}

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
	if p.found == nil && p.lastErr == nil && trailingComma.MatchString(text) {
		// A common slip: a trailing comma before } or ]. Try once without.
		p = parser{budget: maxDecode}
		p.scan(trailingComma.ReplaceAllString(text, "$1"), depth)
	}
	if p.found != nil {
		return *p.found, nil
	}
	if p.lastErr != nil {
		return evidence.Review{}, p.lastErr
	}
	return evidence.Review{}, fmt.Errorf("%w in the output (%d bytes)", ErrNoVerdict, len(text))
}

var trailingComma = regexp.MustCompile(`,(\s*[}\]])`)

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

// validate turns a decoded verdict object into a Review.
func validate(obj map[string]any) (evidence.Review, error) {
	var r evidence.Review
	v, _ := obj["verdict"].(string)
	r.Verdict = normVerdict(v)
	if r.Verdict == "" {
		return r, fmt.Errorf("verdict %s: want \"approve\", \"request_changes\" or \"reject\"", show(obj["verdict"]))
	}
	raw, has := obj["score"]
	if !has {
		return r, errors.New("score missing: want a number from 0 to 10")
	}
	score, ok := number(raw)
	if !ok {
		return r, fmt.Errorf("score %s: want a number from 0 to 10", show(raw))
	}
	r.Score = clamp(score, 0, 10)
	if c, ok := number(obj["confidence"]); ok {
		r.Confidence = clamp(c, 0, 1)
	}
	r.Summary = firstString(obj, "summary", "comment", "comments", "rationale")
	tags, err := readTags(obj["tags"])
	if err != nil {
		return r, err
	}
	r.Tags = tags
	if r.Findings, err = readFindings(obj["findings"]); err != nil {
		return r, err
	}
	return r, nil
}

// normVerdict maps the verdict and its common spellings to the contract's values.
func normVerdict(v string) string {
	switch norm(v) {
	case "approve", "approved", "accept", "accepted", "lgtm", "pass":
		return evidence.VerdictApprove
	case "request_changes", "changes_requested", "request_change", "needs_revision", "needs_changes", "revise", "changes":
		return evidence.VerdictRequestChanges
	case "reject", "rejected", "fail", "block", "blocked":
		return evidence.VerdictReject
	}
	return ""
}

func readTags(raw any) ([]string, error) {
	if raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("tags %s: want a list of strings", show(raw))
	}
	var tags []string
	seen := map[string]bool{}
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("tag %d is %s: want a string", i+1, show(e))
		}
		t := norm(s)
		if t == "scope" || t == "scopecreep" {
			t = TagScopeCreep
		}
		if t != "" && !seen[t] {
			seen[t] = true
			tags = append(tags, t)
		}
	}
	return tags, nil
}

func readFindings(raw any) ([]evidence.ReviewFinding, error) {
	if raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("findings %s: want a list of objects", show(raw))
	}
	var out []evidence.ReviewFinding
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("finding %d is %s: want an object", i+1, show(e))
		}
		f := evidence.ReviewFinding{
			ID:      firstString(m, "id"),
			File:    firstString(m, "file", "path"),
			Message: firstString(m, "msg", "message", "description", "issue"),
			FixHint: firstString(m, "fix_hint", "fix", "suggestion"),
		}
		sev := firstString(m, "severity", "sev")
		if f.Severity = normSeverity(sev); f.Severity == "" {
			return nil, fmt.Errorf("finding %d severity %q: want blocker, major, minor or nit", i+1, sev)
		}
		if f.Message == "" {
			return nil, fmt.Errorf("finding %d has no \"msg\"", i+1)
		}
		if n, ok := number(m["line"]); ok && n > 0 && n < math.MaxInt32 {
			f.Line = int(n)
		}
		if f.File, f.Line = splitFileLine(f.File, f.Line); f.ID == "" {
			f.ID = slug(f.Message)
		}
		out = append(out, f)
	}
	return out, nil
}

func normSeverity(s string) string {
	switch norm(s) {
	case "blocker", "critical", "blocking":
		return SeverityBlocker
	case "major", "high", "error":
		return SeverityMajor
	case "minor", "medium", "warning", "moderate":
		return SeverityMinor
	case "nit", "low", "info", "trivial", "style", "nitpick":
		return SeverityNit
	}
	return ""
}

// splitFileLine reads "x.go:12" in a file field when no line was given.
func splitFileLine(file string, line int) (string, int) {
	if line != 0 {
		return file, line
	}
	if i := strings.LastIndexByte(file, ':'); i > 0 {
		if n, err := strconv.Atoi(file[i+1:]); err == nil && n > 0 {
			return file[:i], n
		}
	}
	return file, line
}

// slug is a stable id for a finding the reviewer gave none: its first words.
func slug(msg string) string {
	var b strings.Builder
	words := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(msg), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if words == 6 {
			break
		}
		if words > 0 {
			b.WriteByte('-')
		}
		b.WriteString(w)
		words++
	}
	return b.String()
}

// norm lower-cases s and turns spaces and hyphens into underscores.
func norm(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.NewReplacer(" ", "_", "-", "_").Replace(s)
}

func number(v any) (float64, bool) {
	var f float64
	var err error
	switch x := v.(type) {
	case json.Number:
		f, err = x.Float64()
	case string:
		f, err = strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(x), "/10")), 64)
	default:
		return 0, false
	}
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// show renders a JSON value briefly for an error message.
func show(v any) string {
	if v == nil {
		return "missing"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return oneLine(b.String(), 60)
}
