package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// geminiTokens is one model's entry of Gemini's SessionMetrics.
type geminiTokens struct {
	Input      *int64 `json:"input"`
	Prompt     int64  `json:"prompt"`
	Candidates int64  `json:"candidates"`
	Cached     int64  `json:"cached"`
	Thoughts   int64  `json:"thoughts"`
	Tool       int64  `json:"tool"`
	Total      int64  `json:"total"`
}

type geminiError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Code    any    `json:"code"`
}

// geminiState is shared by the json and stream-json parsers.
type geminiState struct {
	out    Outcome
	stderr docAccum
	known  bool
	t      tokens
}

// models sums tokens over models: prompt includes cached, thoughts are billed
// as output, tool-use prompt tokens as input.
func (g *geminiState) models(ms map[string]struct {
	Tokens geminiTokens `json:"tokens"`
}) {
	if len(ms) == 0 {
		return
	}
	var t tokens
	names := make([]string, 0, len(ms))
	for n := range ms {
		names = append(names, n)
	}
	slices.Sort(names)
	best, bestTotal := "", int64(-1)
	for _, n := range names {
		k := ms[n].Tokens
		in := k.Prompt - k.Cached
		if k.Input != nil {
			in = *k.Input
		}
		mt := tokens{in: max(in, 0) + k.Tool, out: k.Candidates + k.Thoughts, cacheRead: k.Cached}
		t = t.add(mt)
		g.out.Models = append(g.out.Models, ModelTokens{Model: n, Input: mt.in, Output: mt.out, CacheRead: mt.cacheRead})
		if k.Total > bestTotal {
			best, bestTotal = n, k.Total
		}
	}
	g.known, g.t = true, t
	g.out.Usage.Model = best
}

func (g *geminiState) fail(e *geminiError) {
	g.out.IsError = true
	msg := e.Message
	switch {
	case stdoutRateLimit().MatchString(msg) || strings.Contains(msg, "429") || strings.Contains(strings.ToLower(msg), "quota"):
		g.out.RateLimited = true
	case transientPattern().MatchString(msg):
		g.out.Transient = true
	}
	if c, ok := e.Code.(float64); ok && (c == 401 || c == 403 || c == 41) {
		g.out.Auth = true
	}
	why := e.Type
	if c, ok := e.Code.(float64); ok {
		why = fmt.Sprintf("%s (code %d)", why, int(c))
	}
	g.out.Reason = clip(strings.TrimSpace(why+": "+msg), 300)
}

// StderrLine reads the JSON error envelope Gemini writes to stderr.
func (g *geminiState) StderrLine(b []byte) {
	doc, ok := g.stderr.add(b)
	if !ok {
		return
	}
	var d struct {
		SessionID string       `json:"session_id"`
		Error     *geminiError `json:"error"`
	}
	if json.Unmarshal(doc, &d) != nil || d.Error == nil {
		return
	}
	if g.out.Usage.SessionID == "" {
		g.out.Usage.SessionID = d.SessionID
	}
	g.fail(d.Error)
}

func (g *geminiState) result() Outcome {
	out := g.out
	if g.known {
		g.t.into(&out.Usage)
	}
	return out
}

// Live implements [Parser] for both Gemini parsers, without the stream's
// last error record, which Result clips into a reason.
func (g *geminiState) Live() Live { o := g.result(); return o.live() }

// geminiJSONParser reads `gemini --output-format json`: one (pretty-printed)
// object {session_id, response, stats, error}.
type geminiJSONParser struct {
	geminiState
	doc docAccum
}

func newGeminiJSONParser() *geminiJSONParser { return &geminiJSONParser{} }

func (p *geminiJSONParser) Line(b []byte) {
	doc, ok := p.doc.add(b)
	if !ok {
		return
	}
	var d struct {
		SessionID string       `json:"session_id"`
		Response  *string      `json:"response"`
		Error     *geminiError `json:"error"`
		Stats     *struct {
			Models map[string]struct {
				Tokens geminiTokens `json:"tokens"`
			} `json:"models"`
		} `json:"stats"`
	}
	if json.Unmarshal(doc, &d) != nil || (d.Response == nil && d.Error == nil && d.Stats == nil) {
		return
	}
	p.out.Terminal = true
	if d.SessionID != "" {
		p.out.Usage.SessionID = d.SessionID
	}
	if d.Response != nil {
		p.out.Result = capResult(*d.Response)
	}
	if d.Stats != nil {
		p.models(d.Stats.Models)
	}
	if d.Error != nil {
		p.fail(d.Error)
	}
}

func (p *geminiJSONParser) Result() Outcome { return p.result() }

// geminiStreamParser reads `gemini --output-format stream-json`: init,
// message, tool_use, tool_result, error and a final result with stats.
type geminiStreamParser struct {
	geminiState
	text    []byte
	lastErr string
}

func newGeminiStreamParser() *geminiStreamParser { return &geminiStreamParser{} }

func (p *geminiStreamParser) Line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return
	}
	var r struct {
		Type      string       `json:"type"`
		SessionID string       `json:"session_id"`
		Model     string       `json:"model"`
		Role      string       `json:"role"`
		Content   string       `json:"content"`
		Delta     bool         `json:"delta"`
		Status    string       `json:"status"`
		Severity  string       `json:"severity"`
		Message   string       `json:"message"`
		Error     *geminiError `json:"error"`
		Stats     *struct {
			InputTokens  int64  `json:"input_tokens"`
			OutputTokens int64  `json:"output_tokens"`
			Cached       int64  `json:"cached"`
			Input        *int64 `json:"input"`
			Models       map[string]struct {
				InputTokens  int64  `json:"input_tokens"`
				OutputTokens int64  `json:"output_tokens"`
				Cached       int64  `json:"cached"`
				Input        *int64 `json:"input"`
			} `json:"models"`
		} `json:"stats"`
	}
	if json.Unmarshal(b, &r) != nil {
		return
	}
	switch r.Type {
	case "init":
		p.out.Usage.SessionID, p.out.Usage.Model = r.SessionID, r.Model
	case "message":
		if r.Role != "assistant" {
			return
		}
		if !r.Delta {
			p.text = p.text[:0]
		}
		if len(p.text) < maxResult {
			p.text = append(p.text, r.Content...)
		}
	case "error":
		if r.Severity == "error" {
			p.lastErr = r.Message
		}
	case "result":
		p.out.Terminal = true
		p.out.Result = capResult(string(p.text))
		if s := r.Stats; s != nil {
			in := s.InputTokens - s.Cached
			if s.Input != nil {
				in = *s.Input
			}
			p.known, p.t = true, tokens{in: max(in, 0), out: s.OutputTokens, cacheRead: s.Cached}
			p.streamModels(s.Models)
		}
		if r.Status == "error" || r.Error != nil {
			e := r.Error
			if e == nil {
				e = &geminiError{Type: "error", Message: p.lastErr}
			}
			p.fail(e)
		}
	}
}

func (p *geminiStreamParser) Result() Outcome {
	out := p.result()
	if !out.Terminal && out.Reason == "" && p.lastErr != "" {
		out.Reason = clip(p.lastErr, 300)
	}
	return out
}

// streamModels reads the per-model split of the stream's result stats (flat
// counts, unlike the JSON output's tokens objects): each model is priced at its
// own rate, and the run's model is the one that used the most.
func (p *geminiStreamParser) streamModels(ms map[string]struct {
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
	Cached       int64  `json:"cached"`
	Input        *int64 `json:"input"`
}) {
	names := slices.Sorted(maps.Keys(ms))
	best, bestTotal := "", int64(-1)
	p.out.Models = nil
	for _, n := range names {
		m := ms[n]
		in := m.InputTokens - m.Cached
		if m.Input != nil {
			in = *m.Input
		}
		p.out.Models = append(p.out.Models, ModelTokens{Model: n, Input: max(in, 0), Output: m.OutputTokens, CacheRead: m.Cached})
		if total := m.InputTokens + m.OutputTokens; total > bestTotal {
			best, bestTotal = n, total
		}
	}
	if best != "" {
		p.out.Usage.Model = best
	}
}
