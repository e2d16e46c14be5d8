package agent

import (
	"bytes"
	"encoding/json"

	"github.com/agentloop/agentloop/internal/jsonscan"
)

// cursorParser reads `cursor-agent -p --output-format stream-json`. Usage
// arrives only in the result record (camelCase); Cursor reports no cost. On
// failure Cursor writes text to stderr and no result record.
type cursorParser struct {
	out   Outcome
	known bool
	t     tokens
}

func (p *cursorParser) Line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return
	}
	var typ, subtype, session, model, message, isError, result, usage []byte
	jsonscan.Fields(b, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = v
		case "subtype":
			subtype = v
		case "session_id":
			session = v
		case "model":
			model = v
		case "message":
			message = v
		case "is_error":
			isError = v
		case "result":
			result = v
		case "usage":
			usage = v
		}
		return true
	})
	if s := jsonscan.Str(session); s != "" && p.out.Usage.SessionID == "" {
		p.out.Usage.SessionID = s
	}
	switch jsonscan.Str(typ) {
	case "system":
		if jsonscan.Str(subtype) == "init" {
			p.out.Usage.Model = jsonscan.Str(model)
		}
	case "assistant":
		var m struct {
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(message, &m) == nil {
			if t := contentText(m.Content); t != "" {
				p.out.Result = capResult(t)
			}
		}
	case "result":
		p.out.Terminal = true
		p.out.IsError = jsonscan.Bool(isError) || (subtype != nil && jsonscan.Str(subtype) != "success")
		if r := jsonscan.Str(result); r != "" {
			p.out.Result = capResult(r)
		}
		var u struct {
			Input      int64 `json:"inputTokens"`
			Output     int64 `json:"outputTokens"`
			CacheRead  int64 `json:"cacheReadTokens"`
			CacheWrite int64 `json:"cacheWriteTokens"`
		}
		if usage != nil && json.Unmarshal(usage, &u) == nil {
			p.known, p.t = true, tokens{u.Input, u.Output, u.CacheRead, u.CacheWrite}
		}
		if p.out.IsError {
			if stdoutRateLimit().MatchString(p.out.Result) {
				p.out.RateLimited = true
			}
			p.out.Reason = clip("cursor reported an error: "+p.out.Result, 300)
		}
	}
}

func (p *cursorParser) Result() Outcome {
	out := p.out
	if p.known {
		p.t.into(&out.Usage)
	}
	return out
}

// Live implements [Parser]: Result copies a few fields.
func (p *cursorParser) Live() Live { o := p.Result(); return o.live() }
