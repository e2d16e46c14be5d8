package review

import (
	"github.com/agentloop/agentloop/internal/decision"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/textcut"
)

// validate turns a decoded verdict object into a Review.
func validate(obj map[string]any) (evidence.Review, error) {
	var r evidence.Review
	v, _ := obj["verdict"].(string)
	r.Verdict = evidence.ParseVerdict(v)
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
			t = decision.TriggerScopeCreep
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
	return textcut.Bytes(textcut.Line(b.String()), 60)
}
