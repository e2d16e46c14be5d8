package agent

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
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

// maxMessageIDs bounds the dedupe map: a message's records come together (a
// subagent's may interleave with the main agent's), so the last thousand ids
// are plenty, and the memory stays a few tens of KiB on an endless stream.
const maxMessageIDs = 1 << 10

type tokens struct{ in, out, cacheRead, cacheWrite int64 }

func (t tokens) add(u tokens) tokens {
	return tokens{evidence.AddTokens(t.in, u.in), evidence.AddTokens(t.out, u.out),
		evidence.AddTokens(t.cacheRead, u.cacheRead), evidence.AddTokens(t.cacheWrite, u.cacheWrite)}
}

// into puts t in u as the run's token counts, known.
func (t tokens) into(u *evidence.Usage) {
	u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens = t.in, t.out, t.cacheRead, t.cacheWrite
	u.TokensKnown = true
}

func (t tokens) sub(u tokens) tokens {
	return tokens{t.in - u.in, t.out - u.out, t.cacheRead - u.cacheRead, t.cacheWrite - u.cacheWrite}
}

func (t tokens) max(u tokens) tokens {
	return tokens{max(t.in, u.in), max(t.out, u.out), max(t.cacheRead, u.cacheRead), max(t.cacheWrite, u.cacheWrite)}
}

// anthropicUsage is the Anthropic Messages API usage object.
type anthropicUsage struct {
	Input      int64 `json:"input_tokens"`
	Output     int64 `json:"output_tokens"`
	CacheRead  int64 `json:"cache_read_input_tokens"`
	CacheWrite int64 `json:"cache_creation_input_tokens"`
}

func (u anthropicUsage) tokens() tokens { return tokens{u.Input, u.Output, u.CacheRead, u.CacheWrite} }

type claudeModelUsage struct {
	Input      int64    `json:"inputTokens"`
	Output     int64    `json:"outputTokens"`
	CacheRead  int64    `json:"cacheReadInputTokens"`
	CacheWrite int64    `json:"cacheCreationInputTokens"`
	CostUSD    *float64 `json:"costUSD"`
}

func newClaudeParser(amp bool) *claudeParser { return &claudeParser{amp: amp} }

// usageTokens converts an usage object to tokens; Qwen Code counts the cached
// tokens inside input_tokens (Gemini's promptTokenCount), so they are taken out
// once here and never counted twice.
func (p *claudeParser) usageTokens(u anthropicUsage) tokens {
	t := u.tokens()
	if p.qwen {
		t.in = max(t.in-t.cacheRead, 0)
	}
	return t
}

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

// remember records a message's usage by its id, forgetting the oldest id once
// maxMessageIDs are kept.
func (p *claudeParser) remember(id string, t tokens, seen bool) {
	if p.msgs == nil {
		p.msgs = make(map[string]tokens)
	}
	p.msgs[id] = t
	if seen {
		return
	}
	if len(p.order) < maxMessageIDs {
		p.order = append(p.order, id)
		return
	}
	delete(p.msgs, p.order[p.next])
	p.order[p.next] = id
	p.next = (p.next + 1) % maxMessageIDs
}

// apiError records an assistant message's error kind (rate_limit,
// authentication_failed, billing_error, server_error, …).
func (p *claudeParser) apiError(kind, text string) {
	p.errKind = kind
	switch kind {
	case "rate_limit":
		p.out.RateLimited = true
	case "server_error", "overloaded":
		p.out.Transient = true
	case "authentication_failed", "billing_error":
		p.out.Auth = true
	}
	p.out.Reason = clip(kind+": "+text, 300)
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

// apiRetry reads Claude Code's notice that a request to the provider failed
// and will be retried: {"type":"system","subtype":"api_retry","attempt":3,
// "max_retries":10,"retry_delay_ms":…,"error_status":429,"error":"rate_limit"}.
// It is news while the agent runs (the CLI may still succeed), not an outcome:
// the result record judges the run.
func (p *claudeParser) apiRetry(l *claudeLine) {
	r := Retry{Error: clip(jsonscan.Str(l.errKind), 200)}
	if n, ok := jsonscan.Num(l.attempt); ok {
		r.Attempt = int(n)
	}
	if n, ok := jsonscan.Num(l.maxRetries); ok {
		r.Max = int(n)
	}
	if n, ok := jsonscan.Num(l.retryDelay); ok && n > 0 && n < float64(time.Hour/time.Millisecond) {
		r.Delay = time.Duration(n * float64(time.Millisecond))
	}
	if n, ok := jsonscan.Num(l.errStatus); ok && n > 0 && n < 1000 {
		r.Status = int(n)
	}
	p.out.Retries++
	p.out.LastRetry = r
}

// qwenRetry is Qwen Code's stderr line on a provider request it will retry:
// "Retrying in 60s (attempt 1/10): [API Error: 429 Rate limit reached …]".
// Its stdout retry event carries no status, so the line is the notice.
var qwenRetry = regexp.MustCompile(`^Retrying in (\d+)s \(attempt (\d+)/(\d+)\): \[API Error: (?:(\d{3}) )?(.*?)\]?$`)

// StderrLine reads Qwen Code's retry notices; Claude Code's come on stdout.
func (p *claudeParser) StderrLine(b []byte) {
	if !p.qwen {
		return
	}
	m := qwenRetry.FindSubmatch(bytes.TrimSpace(b))
	if m == nil {
		return
	}
	num := func(b []byte) int { n, _ := strconv.Atoi(string(b)); return n }
	p.out.Retries++
	p.out.LastRetry = Retry{Attempt: num(m[2]), Max: num(m[3]), Delay: time.Duration(num(m[1])) * time.Second,
		Status: num(m[4]), Error: clip(string(m[5]), 200)}
}

func (p *claudeParser) rateLimit(info []byte) {
	var ri struct {
		Status   string  `json:"status"`
		ResetsAt float64 `json:"resetsAt"`
		Type     string  `json:"rateLimitType"`
	}
	if json.Unmarshal(info, &ri) != nil || ri.Status != "rejected" {
		return
	}
	p.out.RateLimited = true
	if ri.ResetsAt > 0 {
		p.out.ResetAt = time.Unix(int64(ri.ResetsAt), 0).UTC()
	}
	p.out.Reason = clip("rate limit reached ("+ri.Type+")", 300)
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
