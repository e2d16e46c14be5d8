package agent

import "github.com/agentloop/agentloop/internal/evidence"

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
