package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sync"

	"github.com/agentloop/agentloop/internal/jsonscan"
)

// gooseParser reads `goose run --output-format stream-json` (and the single
// object of json mode). The schema is UNVERIFIED (recalled from goose-cli, not
// captured): {"type":"message"…}, {"type":"error","error":"…"},
// {"type":"complete","total_tokens":N}; json: {"messages":[…],"metadata":
// {"total_tokens":N,"status":"completed"}}. Goose gives only a total token
// count, recorded as input tokens so that token budgets still work.
type gooseParser struct {
	out Outcome
	doc docAccum // json mode may pretty-print its one object
}

func (p *gooseParser) Line(line []byte) {
	b, ok := p.doc.add(line)
	if !ok {
		return
	}
	var r struct {
		Type        string          `json:"type"`
		Error       json.RawMessage `json:"error"`
		TotalTokens *int64          `json:"total_tokens"`
		Metadata    *struct {
			TotalTokens *int64 `json:"total_tokens"`
			Status      string `json:"status"`
		} `json:"metadata"`
	}
	if json.Unmarshal(b, &r) != nil {
		return
	}
	total := r.TotalTokens
	switch {
	case r.Type == "complete":
		p.out.Terminal = true
	case r.Type == "error":
		p.out.IsError = true
		msg := jsonscan.Str(r.Error)
		if msg == "" {
			msg = string(r.Error)
		}
		if stdoutRateLimit().MatchString(msg) {
			p.out.RateLimited = true
		}
		p.out.Reason = clip(msg, 300)
	case r.Type == "" && r.Metadata != nil:
		p.out.Terminal = true
		total = r.Metadata.TotalTokens
		if s := r.Metadata.Status; s != "" && s != "completed" {
			p.out.IsError, p.out.Reason = true, "goose status "+s
		}
	}
	if total != nil {
		p.out.Usage.InputTokens, p.out.Usage.TokensKnown = *total, true
	}
}

func (p *gooseParser) Result() Outcome { return p.out }

// Live implements [Parser].
func (p *gooseParser) Live() Live { return p.out.live() }

// copilotParser reads `copilot -p … --output-format json` (JSONL, events
// wrapped as {type,data,…}). Copilot bills premium requests: it reports output
// tokens per message but no input tokens and no cost, so tokens stay unknown.
// The terminal record is {"type":"result","sessionId","exitCode","usage"}.
type copilotParser struct {
	out Outcome
	// outputTokens are summed for information only.
	outputTokens int64
}

func (p *copilotParser) Line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return
	}
	var r struct {
		Type      string `json:"type"`
		SessionID string `json:"sessionId"`
		ExitCode  *int   `json:"exitCode"`
		Data      *struct {
			Content      string `json:"content"`
			Model        string `json:"model"`
			OutputTokens int64  `json:"outputTokens"`
			Message      string `json:"message"`
		} `json:"data"`
	}
	if json.Unmarshal(b, &r) != nil {
		return
	}
	switch r.Type {
	case "assistant.message":
		if r.Data != nil {
			p.outputTokens += r.Data.OutputTokens
			if r.Data.Content != "" {
				p.out.Result = capResult(r.Data.Content)
			}
			if r.Data.Model != "" {
				p.out.Usage.Model = r.Data.Model
			}
		}
	case "session.error":
		if r.Data != nil {
			p.out.Reason = clip(r.Data.Message, 300)
			if stdoutRateLimit().MatchString(r.Data.Message) {
				p.out.RateLimited = true
			}
		}
	case "result":
		p.out.Terminal = true
		p.out.Usage.SessionID = r.SessionID
		if r.ExitCode != nil && *r.ExitCode == 0 {
			p.out.RateLimited, p.out.Reason = false, ""
		}
		if r.ExitCode != nil && *r.ExitCode != 0 {
			p.out.IsError = true
			if p.out.Reason == "" {
				p.out.Reason = fmt.Sprintf("copilot reported exit code %d", *r.ExitCode)
			}
		}
	}
}

func (p *copilotParser) Result() Outcome {
	out := p.out
	out.Usage.OutputTokens = p.outputTokens // TokensKnown stays false: no input count
	return out
}

// Live implements [Parser]: Result copies a few fields.
func (p *copilotParser) Live() Live { o := p.Result(); return o.live() }

// textParser reads plain text output (Kiro, custom commands): usage is
// unknown; the last lines are the result; narrow rate-limit wording is noted.
type textParser struct {
	out   Outcome
	tail  []byte
	clock clock
}

const textTail = 8 << 10

// maxNoticeLine is the longest line searched for rate-limit wording: a CLI's
// notice is one short line, and scanning every long line of a flood with the
// pattern would cost more than everything else agentloop does with the output.
const maxNoticeLine = 2 << 10

func (p *textParser) Line(b []byte) {
	if len(b) <= maxNoticeLine && mayBeRateLimit(b) && stdoutRateLimit().Match(b) {
		p.out.RateLimited = true
		p.out.Reason = clip(string(b), 300)
		if t, ok := p.clock.reset(string(b)); ok {
			p.out.ResetAt = t
		}
	}
	if len(b) > textTail {
		b = b[len(b)-textTail:]
	}
	p.tail = append(p.tail, b...)
	p.tail = append(p.tail, '\n')
	// Keep up to twice the tail and compact then, so each line costs its own
	// length, not a copy of the whole tail.
	if over := len(p.tail) - textTail; over > textTail {
		p.tail = append(p.tail[:0], p.tail[over:]...)
	}
}

// rateLimitWords are fragments every match of stdoutRateLimit contains, in the
// cases it can appear in; a line with none of them is skipped without running the
// (much slower) pattern. The matches that hold one of underscoreWords
// (overloaded_error, RESOURCE_EXHAUSTED) hold an underscore too: a line
// without one is not searched for them (each search is a pass over the line,
// and a flood of short lines spent a third of its time in them).
var (
	rateLimitWords  = [][]byte{[]byte("imit"), []byte("IMIT"), []byte("uota"), []byte("UOTA"), []byte("429")}
	underscoreWords = [][]byte{[]byte("verloaded"), []byte("VERLOADED"), []byte("ESOURCE_EXHAUSTED"), []byte("esource_exhausted")}
)

func mayBeRateLimit(b []byte) bool {
	for _, w := range rateLimitWords {
		if bytes.Contains(b, w) {
			return true
		}
	}
	if bytes.IndexByte(b, '_') < 0 {
		return false
	}
	for _, w := range underscoreWords {
		if bytes.Contains(b, w) {
			return true
		}
	}
	return false
}

func (p *textParser) Result() Outcome {
	out := p.out
	tail := p.tail
	if over := len(tail) - textTail; over > 0 {
		tail = tail[over:]
	}
	out.Result = string(bytes.TrimSpace(ansi().ReplaceAll(tail, nil)))
	return out
}

// Live implements [Parser] without the tail, which Result strips of terminal
// escapes: once per line, that cost more than everything else done with the
// output.
func (p *textParser) Live() Live { return p.out.live() }

// ansi matches terminal escape sequences (Kiro prints colored text).
var ansi = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)`)
})
