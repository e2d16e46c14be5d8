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
	nodeFailRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\s*)✖ (.+?) \([\d.]+m?s\)( # (?i:todo|skip).*)?$`)
	})
	nodeSuiteRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*▶ (.+)$`) })
	nodeCountRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ℹ (pass|skipped|todo) (\d+)$`) })
	mochaFailRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^  (\d+)\) (.+)$`) })
	mochaCountRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+(\d+) (passing|pending|failing)`) })
	jsErrLineRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(\w*Error)(?: \[\w+\])?: (.+)$`) })
)

// parseSpecText reads the "spec" text reporters of node --test (✖ name (ms) with
// the error below; a suite's own ✖ after failing subtests is dropped; a test file
// that failed to load is a build finding) and mocha (numbered failure blocks).
func parseSpecText(br *bufio.Reader, c *collector) error {
	lr := newLineReader(br)
	var fails []*jsBlock
	var cur *jsBlock
	curIndent := 0
	suites := map[string]bool{}
	seen := map[string]bool{}
	lastErr := "" // an error printed outside any test (a file's stderr)
	done := false // node's "failing tests:" recap repeats what came before
	mochaTitle := false
	for {
		raw, ok := lr.next()
		if !ok {
			break
		}
		line := strings.TrimRight(StripANSI(string(raw)), " ")
		t := strings.TrimSpace(line)
		switch {
		case t == "✖ failing tests:":
			done, cur = true, nil
			continue
		case nodeCountRE().MatchString(t):
			c.parsed = true
			m := nodeCountRE().FindStringSubmatch(t)
			n, _ := strconv.Atoi(m[2])
			if m[1] == "pass" {
				c.tests.Passed = n
			} else {
				c.tests.Skipped += n
			}
			continue
		case mochaCountRE().MatchString(line) && cur == nil:
			c.parsed = true
			m := mochaCountRE().FindStringSubmatch(line)
			n, _ := strconv.Atoi(m[1])
			switch m[2] {
			case "passing":
				c.tests.Passed = n
			case "pending":
				c.tests.Skipped = n
			}
			continue
		case nodeSuiteRE().MatchString(line):
			suites[nodeSuiteRE().FindStringSubmatch(line)[1]] = true
			cur = nil
			continue
		}
		if m := nodeFailRE().FindStringSubmatch(line); m != nil {
			c.parsed = true
			cur = nil
			if done || m[3] != "" || seen[m[2]] {
				continue
			}
			seen[m[2]] = true
			b := &jsBlock{f: evidence.Finding{Kind: evidence.KindTest, ID: m[2]}}
			if suites[m[2]] {
				b.f.Message = "\x00suite" // dropped below if a subtest failed
			}
			if jsFileRE().MatchString(m[2]) && strings.Contains(m[2], "/") {
				b.f.Kind, b.f.File, b.f.Message = evidence.KindBuild, m[2], lastErr
				b.f.ID = c.rel(m[2])
			}
			cur, curIndent = b, len(m[1])
			if len(fails) < MaxFindings {
				fails = append(fails, b)
			}
			continue
		}
		if m := mochaFailRE().FindStringSubmatch(line); m != nil {
			c.parsed = true
			cur, curIndent, mochaTitle = &jsBlock{f: evidence.Finding{Kind: evidence.KindTest, ID: m[2]}}, -1, true // mocha blocks end at the next one
			if len(fails) < MaxFindings {
				fails = append(fails, cur)
			}
			continue
		}
		switch {
		case cur == nil:
			if m := jsErrLineRE().FindStringSubmatch(line); m != nil && indentOf(line) == 0 {
				lastErr = t
			}
		case mochaTitle && indentOf(line) > 5:
			cur.f.ID += " " + strings.TrimSuffix(t, ":")
			mochaTitle = !strings.HasSuffix(t, ":")
		case t == "":
		case indentOf(line) <= curIndent && !mochaTitle:
			cur = nil
		default:
			mochaTitle = false
			jsSpecLine(c, cur, line, t)
		}
	}
	for _, b := range fails {
		if b.f.Message == "\x00suite" {
			continue
		}
		b.f.Message = cmp.Or(b.f.Message, "failed")
		if strings.Contains(b.f.Message, "timed out") || strings.Contains(b.f.Message, "Timeout of") {
			b.f.Kind = evidence.KindTimeout
		}
		if b.f.Kind != evidence.KindBuild {
			c.tests.Failed++
		}
		c.add(b.f)
	}
	return lr.readErr()
}

func jsSpecLine(c *collector, b *jsBlock, line, t string) {
	if b.f.Kind == evidence.KindBuild && b.f.Message != "" {
		return
	}
	if stackFrameRE().MatchString(line) {
		b.lines = 3 // what follows the stack is the error's properties
		if b.f.Line == 0 {
			if m := frameLocRE().FindStringSubmatch(t); m != nil && c.inRepo(m[1]) {
				b.f.File, b.f.Line = m[1], atoi(m[2])
			}
		}
		return
	}
	if b.lines >= 3 || strings.HasSuffix(t, "{") || strings.HasSuffix(t, ",") || t == "}" {
		return
	}
	b.lines++
	if m := jsErrLineRE().FindStringSubmatch(t); m != nil && m[1] != "Error" && m[1] != "AssertionError" {
		t = m[1] + ": " + m[2]
	} else if m != nil {
		t = m[2]
	}
	addLine(&b.f, strings.Trim(t, "'"))
}
