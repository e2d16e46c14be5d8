package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// opencodeParser reads `opencode run --format json`. Each step_finish is one
// billed model call: its tokens and cost are summed. There is no terminal
// record; a step_finish with reason "stop" ends the run. An error record fails it.
type opencodeParser struct {
	out      Outcome
	known    bool
	t        tokens
	cost     float64
	costSeen bool
	text     []byte
}

func (p *opencodeParser) Line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return
	}
	var r struct {
		Type      string `json:"type"`
		SessionID string `json:"sessionID"`
		Part      *struct {
			Text   string `json:"text"`
			Reason string `json:"reason"`
			Tokens *struct {
				Input     int64 `json:"input"`
				Output    int64 `json:"output"`
				Reasoning int64 `json:"reasoning"`
				Cache     struct {
					Read  int64 `json:"read"`
					Write int64 `json:"write"`
				} `json:"cache"`
			} `json:"tokens"`
			Cost *float64 `json:"cost"`
		} `json:"part"`
		Error *struct {
			Name string `json:"name"`
			Data struct {
				Message     string `json:"message"`
				StatusCode  int    `json:"statusCode"`
				IsRetryable *bool  `json:"isRetryable"`
			} `json:"data"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &r) != nil {
		return
	}
	if r.SessionID != "" {
		p.out.Usage.SessionID = r.SessionID
	}
	switch r.Type {
	case "step_start":
		p.text = p.text[:0]
	case "text":
		if r.Part != nil && len(p.text) < maxResult {
			p.text = append(p.text, r.Part.Text...)
		}
	case "step_finish":
		if r.Part == nil {
			return
		}
		if k := r.Part.Tokens; k != nil {
			p.known = true
			// reasoning is billed as output; tokens.total is not relied on.
			p.t = p.t.add(tokens{k.Input, k.Output + k.Reasoning, k.Cache.Read, k.Cache.Write})
		}
		if r.Part.Cost != nil {
			p.cost += *r.Part.Cost
			p.costSeen = true
		}
		if len(p.text) > 0 {
			p.out.Result = capResult(string(p.text))
		}
		p.out.Terminal = r.Part.Reason == "stop"
	case "error":
		p.out.IsError, p.out.Terminal = true, true
		msg, status, retryable := "", 0, false
		if r.Error != nil {
			msg = r.Error.Name + ": " + r.Error.Data.Message
			status = r.Error.Data.StatusCode
			retryable = r.Error.Data.IsRetryable != nil && *r.Error.Data.IsRetryable
			if status > 0 {
				msg += fmt.Sprintf(" (HTTP %d)", status)
			}
		}
		switch {
		case status == 429 || stdoutRateLimit().MatchString(msg):
			p.out.RateLimited = true
		case status == 401 || status == 403:
			p.out.Auth = true
		case status >= 500 || retryable || transientPattern().MatchString(msg):
			p.out.Transient = true
		}
		p.out.Reason = clip(msg, 300)
	}
}

func (p *opencodeParser) Result() Outcome {
	out := p.out
	if p.known {
		p.t.into(&out.Usage)
	}
	// opencode prints "cost":0 for a model it has no price for: with tokens
	// spent that is not a known $0, so the cost is left to the price table
	// (estimated).
	if p.costSeen && (p.cost > 0 || !p.known || p.t == (tokens{})) {
		out.Usage.CostUSD, out.Usage.CostKnown = p.cost, true
	}
	return out
}

// Live implements [Parser]: Result copies a few fields.
func (p *opencodeParser) Live() Live { o := p.Result(); return o.live() }
