package agent

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/textcut"
)

// Parser formats (the names [NewParser] accepts and [Preset.Format] holds).
const (
	FormatClaudeStream = "claude-stream-json"
	FormatClaudeJSON   = "claude-json"
	FormatQwenStream   = "qwen-stream-json"
	FormatCodex        = "codex-json"
	FormatGeminiJSON   = "gemini-json"
	FormatGeminiStream = "gemini-stream-json"
	FormatCursorStream = "cursor-stream-json"
	FormatOpencode     = "opencode-json"
	FormatAmpStream    = "amp-stream-json"
	FormatAider        = "aider"
	FormatGoose        = "goose-stream-json"
	FormatCopilot      = "copilot-json"
	FormatText         = "text"
)

// Outcome is what a parser learned from an agent's output.
type Outcome struct {
	Usage       evidence.Usage
	Result      string    // the final answer text, when the CLI gives one
	Terminal    bool      // the stream's terminal record was seen
	IsError     bool      // the CLI reported the run as failed
	RateLimited bool      // a rate or usage limit stopped the run
	ResetAt     time.Time // when the limit lifts, if the CLI said
	Overloaded  bool      // the provider was overloaded (529, 503)
	Transient   bool      // a network or server error: worth retrying
	Auth        bool      // the provider rejected the credentials or the configuration (HTTP 401/403)
	Reason      string    // one line on a failure, for people
	// Retries counts the CLI's own retries of failed provider requests it
	// announced while running (Claude Code's api_retry), LastRetry the latest.
	Retries   int
	LastRetry Retry
	// Models splits the tokens by model when the CLI names several (gemini's
	// router and main model), so each is priced at its own rate.
	Models []ModelTokens
}

// Retry is a CLI's notice that a request to its provider failed and will be
// retried: news while the agent runs, not its outcome (the retry may succeed).
type Retry struct {
	Attempt, Max int           // this retry's number and the CLI's limit (0: not said)
	Delay        time.Duration // the wait before it
	Status       int           // the provider's HTTP status (0: not said)
	Error        string        // the CLI's word for the error (rate_limit, authentication_failed, …)
}

// Auth reports whether the provider rejected the credentials or the
// configuration: no retry of the CLI's can help.
func (r Retry) Auth() bool {
	return r.Status == 401 || r.Status == 403 || r.Error == "authentication_failed" || r.Error == "billing_error"
}

// Kind names the failure for people: "rate limited", "overloaded",
// "authentication failed" or "API error".
func (r Retry) Kind() string {
	switch {
	case r.Auth():
		return "authentication failed"
	case r.Status == 429 || r.Error == "rate_limit":
		return "rate limited"
	case r.Status >= 500 || r.Error == "overloaded" || r.Error == "server_error":
		return "overloaded"
	}
	return "API error"
}

// String is the notice for the live status line and the events:
// "rate limited, retry 3/10 in 2s (HTTP 429 rate_limit)".
func (r Retry) String() string {
	var b strings.Builder
	b.WriteString(r.Kind())
	b.WriteString(", retry ")
	b.WriteString(strconv.Itoa(r.Attempt))
	if r.Max > 0 {
		b.WriteString("/" + strconv.Itoa(r.Max))
	}
	if r.Delay > 0 {
		b.WriteString(" in " + r.Delay.Round(100*time.Millisecond).String())
	}
	var why []string
	if r.Status > 0 {
		why = append(why, "HTTP "+strconv.Itoa(r.Status))
	}
	if r.Error != "" {
		why = append(why, r.Error)
	}
	if len(why) > 0 {
		b.WriteString(" (" + strings.Join(why, " ") + ")")
	}
	return b.String()
}

// ModelTokens is one model's share of a run's tokens.
type ModelTokens struct {
	Model                                string
	Input, Output, CacheRead, CacheWrite int64
}

// Parser reads one CLI's output line by line, while the agent runs or from a
// saved log. Line must accept any bytes (cut lines, non-JSON, binary) without
// panicking and must not keep b. Result may be called at any time and returns
// what is known so far.
//
// Live is called after every line while the agent runs, so it must cost no
// more than copying a few fields whatever the agent printed; Result may cost
// more (the text parser strips terminal escapes from its tail) and is called
// once the agent has ended.
type Parser interface {
	Line(b []byte)
	Result() Outcome
	Live() Live
}

// Live is what a parser knows while the agent runs that the run acts on at
// once: the usage so far (for the run's limits) and the retries the CLI
// announced.
type Live struct {
	Usage     evidence.Usage
	Retries   int
	LastRetry Retry
}

// live is the part of an outcome a [Live] holds.
func (o *Outcome) live() Live {
	return Live{Usage: o.Usage, Retries: o.Retries, LastRetry: o.LastRetry}
}

// StderrParser is implemented by parsers that also read the CLI's stderr (Gemini
// writes its JSON error there).
type StderrParser interface {
	StderrLine(b []byte)
}

var formats = map[string]struct {
	terminal bool // the format has a terminal record
	new      func() Parser
	lineTail int  // > 0: the parser reads only the last lineTail bytes of a line
	still    bool // its Live never changes: no usage or retries while the agent runs
}{
	FormatClaudeStream: {true, func() Parser { return newClaudeParser(false) }, 0, false},
	FormatAmpStream:    {true, func() Parser { return newClaudeParser(true) }, 0, false},
	FormatQwenStream:   {true, func() Parser { return &claudeParser{qwen: true} }, 0, false},
	FormatClaudeJSON:   {true, func() Parser { return newClaudeJSONParser() }, 0, false},
	FormatCodex:        {true, func() Parser { return &codexParser{} }, 0, false},
	FormatGeminiJSON:   {true, func() Parser { return newGeminiJSONParser() }, 0, false},
	FormatGeminiStream: {true, func() Parser { return newGeminiStreamParser() }, 0, false},
	FormatCursorStream: {true, func() Parser { return &cursorParser{} }, 0, false},
	FormatOpencode:     {false, func() Parser { return &opencodeParser{} }, 0, false},
	FormatAider:        {false, func() Parser { return &aiderParser{} }, 0, false},
	FormatGoose:        {true, func() Parser { return &gooseParser{} }, 0, false},
	FormatCopilot:      {true, func() Parser { return &copilotParser{} }, 0, false},
	FormatText:         {false, func() Parser { return &textParser{} }, textTail, true},
}

// Formats returns the parser names [NewParser] accepts, sorted.
func Formats() []string {
	names := make([]string, 0, len(formats))
	for n := range formats {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// NewParser returns a fresh parser for format.
func NewParser(format string) (Parser, error) {
	f, ok := formats[format]
	if !ok {
		return nil, fmt.Errorf("unknown output format %q: use one of %s", format, strings.Join(Formats(), ", "))
	}
	return f.new(), nil
}

// newLines returns the writer that splits output into the lines format's
// parser reads: lines of up to max bytes, or for a parser that reads only the
// end of a line (text), that end alone, so that a flood without newlines
// costs no more memory than the parser keeps.
func newLines(format string, max int, fn func(line []byte)) io.WriteCloser {
	if t := formats[format].lineTail; t > 0 {
		return proc.TailLines(min(max, t), fn)
	}
	return proc.Lines(max, fn)
}

// HasTerminal reports whether format ends with a terminal record, so that a
// stream without one means the agent crashed or was killed.
func HasTerminal(format string) bool { return formats[format].terminal }

// clip is s on one line in at most n bytes, for one-line reasons.
func clip(s string, n int) string { return textcut.Bytes(textcut.Line(s), n) }

// maxResult caps the final answer text kept in an [Outcome].
const maxResult = 64 << 10

func capResult(s string) string {
	if len(s) <= maxResult {
		return s
	}
	i := maxResult
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i]
}
