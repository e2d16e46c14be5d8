package agent

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/agentloop/agentloop/internal/jsonscan"
)

// claudeParser reads Claude Code stream-json (and Amp's Claude-compatible
// stream). Live usage is the sum of assistant message usage, once per message id
// (Claude repeats the usage on every content block of a message); the final
// result record's total_cost_usd and modelUsage are authoritative.
type claudeParser struct {
	amp     bool
	qwen    bool // Qwen Code: input_tokens include the cached tokens, errors in result.error.message
	out     Outcome
	msgs    map[string]tokens // usage by assistant message id, of the last maxMessageIDs messages
	order   []string          // those ids, oldest first from next (a ring once full)
	next    int               // the oldest id in order once it is full
	live    tokens
	hasUse  bool   // some assistant usage was seen
	final   bool   // the result record gave the token counts
	errKind string // the last assistant error kind (authentication_failed, …)
	clock   clock  // for the reset times usage-limit messages name
}

func newClaudeParser(amp bool) *claudeParser { return &claudeParser{amp: amp} }

// claudeLine holds the raw top-level members of one record that matter.
type claudeLine struct {
	typ, subtype, session, model, errKind         []byte
	message, rateInfo, isError, apiStatus, turns  []byte
	result, cost, usage, modelUsage, errs, reason []byte
	attempt, maxRetries, retryDelay, errStatus    []byte // system/api_retry
}

func (p *claudeParser) Line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return
	}
	var l claudeLine
	ok := jsonscan.Fields(b, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			l.typ = v
			// A partial message's record (most of a stream with
			// --include-partial-messages) holds nothing read here but the
			// session id: once that is known, the rest is not scanned.
			return string(v) != `"stream_event"` || p.out.Usage.SessionID == ""
		case "subtype":
			l.subtype = v
		case "session_id":
			l.session = v
		case "model":
			l.model = v
		case "error":
			l.errKind = v
		case "message":
			l.message = v
		case "rate_limit_info":
			l.rateInfo = v
		case "is_error":
			l.isError = v
		case "api_error_status":
			l.apiStatus = v
		case "num_turns":
			l.turns = v
		case "result":
			l.result = v
		case "total_cost_usd":
			l.cost = v
		case "usage":
			l.usage = v
		case "modelUsage":
			l.modelUsage = v
		case "errors":
			l.errs = v
		case "terminal_reason":
			l.reason = v
		case "attempt":
			l.attempt = v
		case "max_retries":
			l.maxRetries = v
		case "retry_delay_ms":
			l.retryDelay = v
		case "error_status":
			l.errStatus = v
		}
		return true
	})
	p.record(&l, ok)
}

func (p *claudeParser) record(l *claudeLine, whole bool) {
	if p.out.Usage.SessionID == "" && l.session != nil {
		p.out.Usage.SessionID = jsonscan.Str(l.session)
	}
	switch jsonscan.Str(l.typ) {
	case "system":
		switch jsonscan.Str(l.subtype) {
		case "init":
			if l.model != nil && p.out.Usage.Model == "" {
				p.out.Usage.Model = jsonscan.Str(l.model)
			}
		case "api_retry":
			p.apiRetry(l)
		}
	case "assistant":
		if whole {
			p.assistant(l)
		}
	case "rate_limit_event":
		p.rateLimit(l.rateInfo)
	case "result":
		p.result(l, whole)
	}
}

func (p *claudeParser) assistant(l *claudeLine) {
	var id, model, usage, content []byte
	jsonscan.Fields(l.message, func(k, v []byte) bool {
		switch string(k) {
		case "id":
			id = v
		case "model":
			model = v
		case "usage":
			usage = v
		case "content":
			content = v
		}
		return true
	})
	if m := jsonscan.Str(model); m != "" && m != "<synthetic>" && p.out.Usage.Model == "" {
		p.out.Usage.Model = m
	}
	if kind := jsonscan.Str(l.errKind); kind != "" {
		p.apiError(kind, contentText(content))
	}
	if usage == nil {
		return
	}
	var u anthropicUsage
	if json.Unmarshal(usage, &u) != nil {
		return
	}
	t := p.usageTokens(u)
	if key := jsonscan.Str(id); key != "" {
		prev, seen := p.msgs[key]
		t = t.max(prev)
		p.live = p.live.add(t.sub(prev))
		p.remember(key, t, seen)
		if seen {
			return
		}
	} else {
		p.live = p.live.add(t)
	}
	p.hasUse = true
}

func contentText(content []byte) string {
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (p *claudeParser) Result() Outcome {
	out := p.out
	if p.hasUse {
		p.live.into(&out.Usage)
	}
	return out
}

// Live implements [Parser]: Result copies a few fields.
func (p *claudeParser) Live() Live { o := p.Result(); return o.live() }
