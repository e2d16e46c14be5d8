package gate

import (
	"bufio"
	"cmp"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/evidence"
)

var (
	jestFileRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(FAIL|PASS) (\S+)`) })
	jestBlockRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^  ● (.+)$`) })
	vitestFailRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ FAIL  (\S+)(?: > (.+?))?(?: \[ .* \])?$`) })
	codeFrameLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*>?\s*\d+ ?\||^\s+\|`) })
	jsCountsRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*Tests:?\s+(.*)$`) })
	jsCountRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+) (failed|passed|skipped|todo|pending)`) })
)

type jsBlock struct {
	f     evidence.Finding
	lines int
	said  []string // the lines an expectation is read from ([expectationHint])
}

// parseJSText reads the default text reporters of jest ("FAIL file", "● a › b"
// blocks with code frames and "at … (file:line:col)") and vitest (" FAIL  file >
// a > b" blocks with "❯ file:line:col"): a suite that failed to run is a build
// finding, a timeout a timeout. An assertion's lines right under "FAIL file",
// with no block header (an excerpt pasted short), are a failure of that file.
// A block's Expected and Received values that say plainly what to change
// ([expectationHint]) put that first in its message.
func parseJSText(br *bufio.Reader, c *collector) error {
	lr := newLineReader(br)
	file, failed := "", false
	var cur *jsBlock
	var blocks []*jsBlock
	for {
		raw, ok := lr.next()
		if !ok {
			break
		}
		line := strings.TrimRight(StripANSI(string(raw)), " ")
		if m := jestFileRE().FindStringSubmatch(line); m != nil {
			c.parsed = true
			file, failed, cur = m[2], m[1] == "FAIL", nil
			continue
		}
		if m := jestBlockRE().FindStringSubmatch(line); m != nil {
			c.parsed = true
			cur = &jsBlock{f: evidence.Finding{Kind: evidence.KindTest, ID: file + " › " + strings.ReplaceAll(m[1], " › ", " "), File: file, Unit: file, Test: m[1]}}
			if m[1] == "Test suite failed to run" {
				cur.f.Kind, cur.f.ID, cur.f.Test = evidence.KindBuild, file, ""
			}
			blocks = append(blocks, cur)
			continue
		}
		if m := vitestFailRE().FindStringSubmatch(line); m != nil {
			c.parsed = true
			cur = &jsBlock{f: evidence.Finding{Kind: evidence.KindTest, ID: m[1] + " › " + strings.ReplaceAll(m[2], " > ", " "), File: m[1], Unit: m[1], Test: strings.ReplaceAll(m[2], " > ", " › ")}}
			if m[2] == "" {
				cur.f.Kind, cur.f.ID, cur.f.Test = evidence.KindBuild, m[1], ""
			}
			blocks = append(blocks, cur)
			continue
		}
		if m := jsCountsRE().FindStringSubmatch(line); m != nil {
			for _, n := range jsCountRE().FindAllStringSubmatch(m[1], -1) {
				v, _ := strconv.Atoi(n[1])
				switch n[2] {
				case "passed":
					c.tests.Passed = v
				case "skipped", "todo", "pending":
					c.tests.Skipped += v
				}
			}
			cur = nil
			continue
		}
		if cur == nil && failed && isAssertLine(line) {
			cur = &jsBlock{f: evidence.Finding{Kind: evidence.KindTest, ID: file, File: file, Unit: file}}
			blocks = append(blocks, cur)
		}
		if cur != nil && len(blocks) <= MaxFindings {
			jsBlockLine(c, cur, line)
		}
	}
	for _, b := range blocks {
		if h := expectationHint(b.said); h != "" {
			b.f.Message = h + "\n" + b.f.Message
		}
		b.f.Message = cmp.Or(b.f.Message, "failed")
		if strings.Contains(b.f.Message, "Exceeded timeout") || strings.Contains(b.f.Message, "timed out") {
			b.f.Kind = evidence.KindTimeout
		}
		if b.f.Kind != evidence.KindBuild {
			c.tests.Failed++
		}
		c.add(b.f)
	}
	return lr.readErr()
}

func jsBlockLine(c *collector, b *jsBlock, line string) {
	t := strings.TrimSpace(line)
	if len(b.said) < 24 && t != "" {
		b.said = append(b.said, t)
	}
	if b.f.Kind == evidence.KindBuild && b.f.Test == "" && b.f.Message == "" && isAssertLine(line) {
		// " FAIL  file" with an assertion under it, not a suite's load error:
		// a failure of that file's tests.
		b.f.Kind = evidence.KindTest
	}
	switch {
	case t == "" || codeFrameLine().MatchString(line) || strings.HasPrefix(t, "⎯"):
		return
	case stackFrameRE().MatchString(line):
		if b.f.Line == 0 {
			if m := frameLocRE().FindStringSubmatch(t); m != nil && c.inRepo(m[1]) {
				b.f.File, b.f.Line = m[1], atoi(m[2])
			}
		}
		return
	}
	if b.f.Kind == evidence.KindBuild {
		// A suite that failed to run: the line that names the error.
		if strings.Contains(t, "Error") && !strings.HasPrefix(b.f.Message, "SyntaxError") {
			b.f.Message = t
		}
		return
	}
	if b.lines >= 4 || jestHeaderRE().MatchString(t) || t == "Cause:" {
		return
	}
	b.lines++
	addLine(&b.f, strings.TrimPrefix(t, "Error: "))
}
