package agent

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// aiderParser reads aider's text output and its --analytics-log JSONL (the
// [Runner] feeds the log file's lines after the run). Aider exits 0 even when
// the model call failed, so failures are read from the text.
type aiderParser struct {
	out Outcome
	// from analytics message_send events (preferred when present)
	events   int
	evTokens tokens
	evCost   float64
	evModel  string
	// from "Tokens: … sent, … received. Cost: $… message, $… session." lines
	lines    int
	txTokens tokens
	txCost   float64
	txCostOK bool
}

var (
	aiderTokens = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Tokens: ([\d.]+[kM]?) sent(?:, ([\d.]+[kM]?) cache write)?(?:, ([\d.]+[kM]?) cache hit)?, ([\d.]+[kM]?) received\.`)
	})
	aiderCost  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Cost: \$([\d.]+) message, \$([\d.]+) session\.`) })
	aiderError = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`litellm\.(\w+Error)|\b(RateLimitError|APIConnectionError|ServiceUnavailableError|AuthenticationError|InternalServerError|Timeout)\b`)
	})
)

func (p *aiderParser) Line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return
	}
	if b[0] == '{' {
		p.event(b)
		return
	}
	s := string(b)
	if m := aiderTokens().FindStringSubmatch(s); m != nil {
		p.succeeded()
		p.lines++
		// "sent" already includes the cache writes (aider base_coder.py).
		write := aiderNum(m[2])
		p.txTokens = p.txTokens.add(tokens{in: max(aiderNum(m[1])-write, 0), out: aiderNum(m[4]), cacheRead: aiderNum(m[3]), cacheWrite: write})
	}
	if m := aiderCost().FindStringSubmatch(s); m != nil {
		if c, err := strconv.ParseFloat(m[2], 64); err == nil {
			p.txCost, p.txCostOK = c, true
		}
	}
	if m := aiderError().FindStringSubmatch(s); m != nil {
		kind := m[1] + m[2]
		switch kind {
		case "RateLimitError":
			p.out.RateLimited = true
		case "APIConnectionError", "ServiceUnavailableError", "InternalServerError", "Timeout":
			p.out.Transient = true
		}
		p.out.IsError = true
		p.out.Reason = clip(s, 300)
	}
}

// aiderNum reads aider's token counts: "81", "2.5k", "10k".
func aiderNum(s string) int64 {
	if s == "" {
		return 0
	}
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"):
		s, mult = s[:len(s)-1], 1e3
	case strings.HasSuffix(s, "M"):
		s, mult = s[:len(s)-1], 1e6
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return int64(f*mult + 0.5)
}

func (p *aiderParser) event(b []byte) {
	var e struct {
		Event      string `json:"event"`
		Properties struct {
			MainModel  string   `json:"main_model"`
			Prompt     int64    `json:"prompt_tokens"`
			Completion int64    `json:"completion_tokens"`
			Cost       float64  `json:"cost"`
			TotalCost  *float64 `json:"total_cost"`
		} `json:"properties"`
	}
	if json.Unmarshal(b, &e) != nil || e.Event != "message_send" {
		return
	}
	pr := e.Properties
	p.succeeded()
	p.events++
	p.evTokens = p.evTokens.add(tokens{in: pr.Prompt, out: pr.Completion})
	if pr.TotalCost != nil {
		p.evCost = *pr.TotalCost
	} else {
		p.evCost += pr.Cost
	}
	p.evModel = pr.MainModel
}

func (p *aiderParser) Result() Outcome {
	out := p.out
	switch {
	case p.events > 0:
		u := &out.Usage
		u.InputTokens, u.OutputTokens, u.TokensKnown = p.evTokens.in, p.evTokens.out, true
		u.CostUSD, u.CostKnown, u.Model, u.Turns = p.evCost, true, p.evModel, p.events
	case p.lines > 0:
		u := &out.Usage
		u.InputTokens, u.OutputTokens = p.txTokens.in, p.txTokens.out
		u.CacheReadTokens, u.CacheWriteTokens, u.TokensKnown = p.txTokens.cacheRead, p.txTokens.cacheWrite, true
		u.CostUSD, u.CostKnown, u.Turns = p.txCost, p.txCostOK, p.lines
	}
	return out
}

// Live implements [Parser]: Result copies a few fields.
func (p *aiderParser) Live() Live { o := p.Result(); return o.live() }

// succeeded clears error signals seen before: aider retries failed model calls
// itself, and a usage report means one went through after all.
func (p *aiderParser) succeeded() {
	p.out.IsError, p.out.RateLimited, p.out.Transient, p.out.Reason = false, false, false, ""
}
