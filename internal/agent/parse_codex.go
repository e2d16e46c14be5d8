package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// codexParser reads `codex exec --json`. turn.completed carries the thread's
// cumulative usage (replace, never add); only turn.failed is fatal; top-level
// error records can be notices (reconnects). Codex reports no cost.
type codexParser struct {
	out     Outcome
	lastErr string
	known   bool
	t       tokens
	clock   clock
}

type codexRecord struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Message  string `json:"message"`
	Usage    *struct {
		Input      int64 `json:"input_tokens"`
		Cached     int64 `json:"cached_input_tokens"`
		CacheWrite int64 `json:"cache_write_input_tokens"`
		Output     int64 `json:"output_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	Item *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"item"`
}

func (p *codexParser) Line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return
	}
	var r codexRecord
	if json.Unmarshal(b, &r) != nil {
		return
	}
	switch r.Type {
	case "thread.started":
		p.out.Usage.SessionID = r.ThreadID
	case "turn.started":
		p.out.Terminal, p.out.IsError = false, false
	case "item.completed":
		if r.Item != nil && r.Item.Type == "agent_message" {
			p.out.Result = capResult(r.Item.Text)
		}
	case "turn.completed":
		p.out.Terminal, p.out.IsError = true, false
		if u := r.Usage; u != nil {
			p.known = true
			// input_tokens includes the cached ones.
			p.t = tokens{in: max(u.Input-u.Cached, 0), out: u.Output, cacheRead: u.Cached, cacheWrite: u.CacheWrite}
		}
	case "turn.failed":
		p.out.Terminal, p.out.IsError = true, true
		msg := r.Message
		if r.Error != nil {
			msg = r.Error.Message
		}
		p.failure(msg)
	case "error":
		p.lastErr = r.Message
	}
}

// failure classifies an error message, which is often the upstream JSON body.
func (p *codexParser) failure(msg string) {
	text, status := apiErrorBody(msg)
	switch {
	case status == 429 || stdoutRateLimit().MatchString(msg):
		p.out.RateLimited = true
	case status == 529 || overloadPattern().MatchString(text):
		p.out.Overloaded = true
	case status >= 500 || transientPattern().MatchString(msg):
		p.out.Transient = true
	case status == 401 || status == 403:
		p.out.Auth = true
	}
	if status > 0 {
		text = fmt.Sprintf("HTTP %d: %s", status, text)
	}
	p.out.Reason = clip(text, 300)
	// A ChatGPT plan's usage limit: "… try again at 2:51 PM."
	if reset, ok := p.clock.reset(msg); ok {
		p.out.RateLimited, p.out.Overloaded, p.out.Transient, p.out.ResetAt = true, false, false, reset
	}
}

// apiErrorBody reads {"status":N,"error":{"message":…}} bodies embedded in an
// error message; other text comes back as it is.
func apiErrorBody(msg string) (string, int) {
	var body struct {
		Status int `json:"status"`
		Error  struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(msg), &body) != nil || body.Error.Message == "" {
		return msg, body.Status
	}
	text := body.Error.Message
	if body.Error.Type != "" {
		text = body.Error.Type + ": " + text
	}
	return text, body.Status
}

func (p *codexParser) Result() Outcome {
	out := p.out
	if p.known {
		p.t.into(&out.Usage)
	}
	if !out.Terminal && p.lastErr != "" {
		q := codexParser{clock: p.clock}
		q.failure(p.lastErr)
		out.Reason, out.RateLimited, out.Overloaded, out.Transient, out.Auth, out.ResetAt = q.out.Reason, q.out.RateLimited, q.out.Overloaded, q.out.Transient, q.out.Auth, q.out.ResetAt
	}
	return out
}

// Live implements [Parser] without judging the last error record, which
// Result does with patterns.
func (p *codexParser) Live() Live {
	l := p.out.live()
	if p.known {
		p.t.into(&l.Usage)
	}
	return l
}
