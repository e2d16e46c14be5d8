package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/jsonscan"
)

// result reads Claude's terminal record: is_error, api_error_status, the
// authoritative total_cost_usd and modelUsage, the final text or errors[].
func (p *claudeParser) result(l *claudeLine, whole bool) {
	p.out.Terminal = true
	subtype := jsonscan.Str(l.subtype)
	p.out.IsError = jsonscan.Bool(l.isError) || strings.HasPrefix(subtype, "error")
	if n, ok := jsonscan.Num(l.turns); ok {
		p.out.Usage.Turns = int(n)
	}
	if c, ok := jsonscan.Num(l.cost); ok {
		p.out.Usage.CostUSD, p.out.Usage.CostKnown = c, true
	}
	p.resultTokens(l.usage, l.modelUsage)
	text := jsonscan.Str(l.result)
	var errs []string
	if l.errs != nil {
		_ = json.Unmarshal(l.errs, &errs)
	}
	if text == "" {
		text = strings.Join(errs, "\n")
	}
	if text == "" && p.qwen {
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(l.errKind, &e) == nil {
			text = e.Message // Qwen Code: result.error.message
		}
	}
	p.out.Result = capResult(text)
	if !whole {
		p.out.Reason = "the result record was cut (line longer than the read limit); usage may be incomplete"
	}
	if !p.out.IsError {
		// Retried inside the CLI and then succeeded: earlier signals are moot.
		p.out.RateLimited, p.out.ResetAt, p.out.Overloaded, p.out.Transient, p.out.Auth = false, time.Time{}, false, false, false
		if whole {
			p.out.Reason = ""
		}
		return
	}
	status, _ := jsonscan.Num(l.apiStatus)
	switch {
	case status == 429:
		p.out.RateLimited = true
	case status == 529 || (status == 0 && overloadPattern().MatchString(text)):
		p.out.Overloaded = true
	case status >= 500:
		p.out.Transient = true
	case status == 401 || status == 403:
		p.out.Auth = true
	}
	if reset, ok := p.clock.reset(text); ok {
		// The rate_limit_event's instant, when one came, is the exact one.
		p.out.RateLimited, p.out.Reason = true, clip(text, 300)
		if p.out.ResetAt.IsZero() {
			p.out.ResetAt = reset
		}
	} else if !p.out.Overloaded && stdoutRateLimit().MatchString(text) {
		p.out.RateLimited = true
	}
	why := jsonscan.Str(l.reason)
	if p.errKind != "" {
		why = p.errKind
	} else if why == "" || why == "completed" {
		why = subtype
	}
	if status > 0 {
		why = fmt.Sprintf("%s (HTTP %d)", why, int(status))
	}
	if !p.out.RateLimited || p.out.Reason == "" {
		p.out.Reason = clip(why+": "+text, 300)
	}
}

// resultTokens takes the final token counts: the sum over modelUsage (which
// includes side models and matches total_cost_usd), else result.usage.
func (p *claudeParser) resultTokens(usage, modelUsage []byte) {
	var mu map[string]claudeModelUsage
	if modelUsage != nil && json.Unmarshal(modelUsage, &mu) == nil && len(mu) > 0 {
		var t tokens
		best, bestCost := "", -1.0
		for m, u := range mu {
			t = t.add(tokens{u.Input, u.Output, u.CacheRead, u.CacheWrite})
			if c := costOf(u.CostUSD); c > bestCost || (c == bestCost && m < best) {
				best, bestCost = m, c
			}
		}
		p.setFinal(t)
		p.out.Usage.Model = best
		return
	}
	var u anthropicUsage
	if usage != nil && json.Unmarshal(usage, &u) == nil {
		p.setFinal(p.usageTokens(u))
	}
}

func costOf(c *float64) float64 {
	if c == nil {
		return 0
	}
	return *c
}

func (p *claudeParser) setFinal(t tokens) {
	p.final = true
	p.live = t
	p.hasUse = true
}
