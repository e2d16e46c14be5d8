package gate

import (
	"bufio"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/evidence"
)

var (
	tscLineRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.+?)\((\d+),(\d+)\): (error|warning) (TS\d+): (.*)$`)
	})
	tscPrettyRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.+?):(\d+):(\d+) - (error|warning) (TS\d+): (.*)$`)
	})
	tscGlobalRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(error|warning) (TS\d+): (.*)$`) })
	mypyRE      = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.+?\.pyi?):(\d+)(?::(\d+))?(?::\d+:\d+)?: (error|warning|note): (.*?)(?:  \[([\w-]+)\])?$`)
	})
)

// parseTSC reads tsc output (--pretty false lines, or --pretty true with code
// frames); indented lines continue the previous message.
func parseTSC(br *bufio.Reader, c *collector) error {
	lr := newLineReader(br)
	last := -1
	for {
		raw, ok := lr.next()
		if !ok {
			break
		}
		line := StripANSI(string(raw))
		m := tscLineRE().FindStringSubmatch(line)
		if m == nil {
			m = tscPrettyRE().FindStringSubmatch(line)
		}
		if m != nil {
			c.parsed = true
			ln, _ := strconv.Atoi(m[2])
			col, _ := strconv.Atoi(m[3])
			f := evidence.Finding{Kind: evidence.KindType, ID: m[5], File: m[1], Line: ln, Col: col, Message: m[6]}
			if m[4] == "warning" {
				f.Severity = evidence.SeverityWarning
			}
			c.add(f)
			last = len(c.findings) - 1
			continue
		}
		if g := tscGlobalRE().FindStringSubmatch(line); g != nil {
			c.parsed = true
			c.add(evidence.Finding{Kind: evidence.KindType, ID: g[2], Message: g[3]})
			last = len(c.findings) - 1
			continue
		}
		if strings.HasPrefix(line, "  ") && !strings.Contains(line, "~") && last >= 0 && last < len(c.findings) && len(c.findings[last].Message) < maxMsgBytes {
			if t := strings.TrimSpace(line); t != "" && !isCodeFrame(t) {
				c.findings[last].Message += " | " + t
			}
			continue
		}
		if strings.TrimSpace(line) != "" && !isCodeFrame(strings.TrimSpace(line)) {
			last = -1
		}
	}
	return lr.readErr()
}

var codeFrameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\s|^~+$|^Found \d+ error`) })

func isCodeFrame(s string) bool { return codeFrameRE().MatchString(s) }

// parseMypy reads mypy's text output; a note attaches to the error before it.
func parseMypy(br *bufio.Reader, c *collector) error {
	lr := newLineReader(br)
	for {
		raw, ok := lr.next()
		if !ok {
			break
		}
		mypyLine(c, StripANSI(string(raw)))
	}
	return lr.readErr()
}

func mypyLine(c *collector, line string) {
	m := mypyRE().FindStringSubmatch(line)
	if m == nil {
		if strings.HasPrefix(line, "Found ") || strings.HasPrefix(line, "Success: ") {
			c.parsed = true
		}
		return
	}
	c.parsed = true
	if m[4] == "note" {
		if n := len(c.findings); n > 0 && c.findings[n-1].File == c.rel(m[1]) && len(c.findings[n-1].Message) < maxMsgBytes {
			c.findings[n-1].Message += " | " + m[5]
		}
		return
	}
	ln, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	f := evidence.Finding{Kind: evidence.KindType, ID: m[6], File: m[1], Line: ln, Col: col, Message: m[5]}
	if m[4] == "warning" {
		f.Severity = evidence.SeverityWarning
	}
	if strings.Contains(f.Message, "syntax") || strings.HasPrefix(f.Message, "invalid syntax") {
		f.Kind = evidence.KindBuild
	}
	c.add(f)
}
