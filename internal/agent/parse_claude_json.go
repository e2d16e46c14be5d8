package agent

import (
	"bytes"

	"github.com/agentloop/agentloop/internal/jsonscan"
)

// claudeJSONParser reads `claude -p --output-format json`: one result object, or
// (with verbose on) an array of every message, possibly pretty-printed.
type claudeJSONParser struct {
	doc docAccum
	c   *claudeParser
}

func newClaudeJSONParser() *claudeJSONParser { return &claudeJSONParser{c: newClaudeParser(false)} }

func (p *claudeJSONParser) Line(b []byte) {
	doc, ok := p.doc.add(b)
	if !ok {
		return
	}
	if t := bytes.TrimSpace(doc); len(t) > 0 && t[0] == '[' {
		jsonscan.Elements(t, func(v []byte) { p.c.Line(v) })
		return
	}
	p.c.Line(doc)
}

func (p *claudeJSONParser) Result() Outcome { return p.c.Result() }

// Live implements [Parser].
func (p *claudeJSONParser) Live() Live { return p.c.Live() }
