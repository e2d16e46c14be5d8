package gate

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// eachArrayElement decodes a top-level JSON array one element at a time, so a
// huge report never sits in memory whole.
func eachArrayElement(br *bufio.Reader, fn func(json.RawMessage)) error {
	dec := json.NewDecoder(io.LimitReader(skipToJSON(br), MaxDocument))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return errors.New("not a JSON array")
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		fn(raw)
	}
	return nil
}

// parseESLint reads eslint -f json; a fatal parse error is a build finding.
func parseESLint(br *bufio.Reader, c *collector) error {
	return eachArrayElement(br, func(raw json.RawMessage) {
		var file struct {
			FilePath string
			Messages []struct {
				RuleID       *string
				Severity     int
				Message      string
				Line, Column int
				Fatal        bool
			}
		}
		if json.Unmarshal(raw, &file) != nil {
			return
		}
		c.parsed = true
		for _, m := range file.Messages {
			f := evidence.Finding{Kind: evidence.KindLint, File: file.FilePath, Line: m.Line, Col: m.Column, Message: m.Message}
			if m.RuleID != nil {
				f.ID = *m.RuleID
			}
			if m.Fatal || m.RuleID == nil {
				f.Kind = evidence.KindBuild
			}
			if m.Severity == 1 {
				f.Severity = evidence.SeverityWarning
			}
			c.add(f)
		}
	})
}

// parseRuff reads ruff --output-format json; a syntax error (code null) is a build finding.
func parseRuff(br *bufio.Reader, c *collector) error {
	return eachArrayElement(br, func(raw json.RawMessage) {
		var d struct {
			Code     *string
			Message  string
			Filename string
			Location struct{ Row, Column int }
		}
		if json.Unmarshal(raw, &d) != nil {
			return
		}
		c.parsed = true
		f := evidence.Finding{Kind: evidence.KindLint, File: d.Filename, Line: d.Location.Row, Col: d.Location.Column, Message: d.Message}
		if d.Code != nil {
			f.ID = *d.Code
		} else {
			f.Kind = evidence.KindBuild
		}
		c.add(f)
	})
}

// parseMypyJSON reads mypy -O json (one object per line); text lines in between
// (syntax errors are still printed as text) go through the mypy text parser.
func parseMypyJSON(br *bufio.Reader, c *collector) error {
	lr := newLineReader(br)
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		if len(line) == 0 || line[0] != '{' {
			mypyLine(c, StripANSI(string(line)))
			continue
		}
		var d struct {
			File, Message, Hint, Code, Severity string
			Line, Column                        int
		}
		if json.Unmarshal(line, &d) != nil {
			continue
		}
		c.parsed = true
		if d.Severity == "note" {
			continue
		}
		msg := d.Message
		if d.Hint != "" {
			msg += "\n" + d.Hint
		}
		f := evidence.Finding{Kind: evidence.KindType, ID: d.Code, File: d.File, Line: d.Line, Col: d.Column + 1, Message: msg, Severity: lintSeverity(d.Severity)}
		if d.Column < 0 {
			f.Col = 0
		}
		c.add(f)
	}
	return lr.readErr()
}

// parseCargoJSON reads cargo --message-format=json: compiler messages of level
// error (and warnings, as warnings).
func parseCargoJSON(br *bufio.Reader, c *collector) error {
	lr := newLineReader(br)
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var d struct {
			Reason  string
			Message struct {
				Level, Message string
				Code           *struct{ Code string }
				Spans          []struct {
					FileName    string `json:"file_name"`
					LineStart   int    `json:"line_start"`
					ColumnStart int    `json:"column_start"`
					IsPrimary   bool   `json:"is_primary"`
				}
			}
		}
		if json.Unmarshal(line, &d) != nil {
			continue
		}
		c.parsed = true
		m := d.Message
		if d.Reason != "compiler-message" || (m.Level != "error" && m.Level != "warning") || strings.HasPrefix(m.Message, "aborting due to") {
			continue
		}
		f := evidence.Finding{Kind: evidence.KindBuild, Tool: "rustc", Message: m.Message}
		if m.Code != nil {
			f.ID = m.Code.Code
		}
		if m.Level == "warning" {
			f.Kind, f.Severity = evidence.KindLint, evidence.SeverityWarning
		}
		for _, s := range m.Spans {
			if s.IsPrimary {
				f.File, f.Line, f.Col = s.FileName, s.LineStart, s.ColumnStart
				break
			}
		}
		if f.File == "" && len(m.Spans) == 0 && strings.Contains(m.Message, "warning") {
			continue // "N warnings emitted"
		}
		c.add(f)
	}
	return lr.readErr()
}
