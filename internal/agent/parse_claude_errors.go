package agent

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/jsonscan"
)

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
var qwenRetry = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^Retrying in (\d+)s \(attempt (\d+)/(\d+)\): \[API Error: (?:(\d{3}) )?(.*?)\]?$`)
})

// StderrLine reads Qwen Code's retry notices; Claude Code's come on stdout.
func (p *claudeParser) StderrLine(b []byte) {
	if !p.qwen {
		return
	}
	m := qwenRetry().FindSubmatch(bytes.TrimSpace(b))
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
