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
	utHeaderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(FAIL|ERROR): (\S+) \(([^)]+)\)( \(.*\))?$`) })
	utResultRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\S+ \([^)]+\)(?: \(.*\))? \.\.\. (ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$`)
	})
	pyFrameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+File "([^"]+)", line (\d+)`) })
	pyExcRE   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failure|Warning|Fail)|AssertionError|KeyError|StopIteration)(?::\s*(.*))?$`)
	})
	ptSummaryRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(FAILED|ERROR) (\S+(?:::|\.py)\S*)(?: - (.*))?$`) })
	ptParamRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(FAILED|ERROR) (\S+\.py::\S*\[)`) })
	ptBlockRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^_{3,} (.+?) _{3,}$`) })
	ptLocRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\S+\.py):(\d+): (\w+)`) })
	ptCountsRE  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(\d+) (failed|passed|skipped|errors?|xfailed|xpassed)`)
	})
	// pytest's counts line: between "=" rules, or bare under -q ("2 failed, 1 passed in 0.12s").
	ptFinalRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(=+ .*\d+ (failed|passed|skipped|errors?|xfailed|xpassed|deselected|warnings?).* in [\d.]+s.*=+` +
			`|\d+ (failed|passed|skipped|errors?|xfailed|xpassed|deselected|warnings?)(, \d+ [a-z]+)* in [\d.]+s( \([\d:]+\))?)$`)
	})
)

type pyBlock struct {
	title, file, msg string
	line             int
	kind             evidence.Kind
	frame            string // last in-repo traceback frame, "path:line"
	eLines           bool   // msg holds pytest's E lines
}

// parsePython reads Python test runners' text: unittest (-v result lines, FAIL:/
// ERROR: blocks with tracebacks; an import failure is a build finding) and pytest
// (the "short test summary info" lines, FAILURES/ERRORS blocks with their E lines
// and "path:line: Exception", collection errors, the final counts line).
func parsePython(br *bufio.Reader, c *collector) error {
	lr := newLineReader(br)
	var blocks []*pyBlock
	var cur *pyBlock
	var summary []evidence.Finding
	for {
		raw, ok := lr.next()
		if !ok {
			break
		}
		line := StripANSI(string(raw))
		switch {
		case utResultRE().MatchString(line):
			c.parsed = true
			switch m := utResultRE().FindStringSubmatch(line); {
			case m[1] == "ok":
				c.tests.Passed++
			case strings.HasPrefix(m[1], "skipped"), m[1] == "expected failure":
				c.tests.Skipped++
			}
			continue
		case utHeaderRE().MatchString(line):
			c.parsed = true
			m := utHeaderRE().FindStringSubmatch(line)
			cur = &pyBlock{title: m[3] + m[4], kind: evidence.KindTest}
			if m[1] == "ERROR" {
				cur.kind = evidence.KindCrash
			}
			if strings.HasPrefix(m[3], "unittest.loader._FailedTest.") {
				cur.kind, cur.title = evidence.KindBuild, strings.TrimPrefix(m[3], "unittest.loader._FailedTest.")
			}
			if len(blocks) < MaxFindings {
				blocks = append(blocks, cur)
			}
			continue
		case ptSummaryRE().MatchString(line) || ptParamRE().MatchString(line):
			c.parsed = true
			m := ptSummary(line)
			f := evidence.Finding{Kind: evidence.KindTest, ID: m[2], Message: m[3]}
			f.File, f.Test, _ = strings.Cut(m[2], "::")
			f.Unit = f.File // pytest selects a test by its node id, file::name
			if m[1] == "ERROR" {
				f.Kind = evidence.KindCrash
				if !strings.Contains(m[2], "::") {
					f.Kind = evidence.KindBuild // a collection error names a file
				}
			}
			if len(summary) < MaxFindings {
				summary = append(summary, f)
			}
			continue
		case ptFinalRE().MatchString(line):
			c.parsed = true
			for _, m := range ptCountsRE().FindAllStringSubmatch(line, -1) {
				n, _ := strconv.Atoi(m[1])
				switch m[2] {
				case "passed", "xpassed":
					c.tests.Passed = n
				case "skipped", "xfailed":
					c.tests.Skipped += n
				}
			}
			cur = nil
			continue
		case ptBlockRE().MatchString(line):
			c.parsed = true
			title := ptBlockRE().FindStringSubmatch(line)[1]
			cur = &pyBlock{title: title, kind: evidence.KindTest}
			if rest, ok := strings.CutPrefix(title, "ERROR collecting "); ok {
				cur.kind, cur.title, cur.file = evidence.KindBuild, rest, rest
			}
			if len(blocks) < MaxFindings {
				blocks = append(blocks, cur)
			}
			continue
		case strings.HasPrefix(line, "=========="), strings.HasPrefix(line, "Ran "):
			cur = nil
			continue
		}
		if cur != nil {
			pyBlockLine(c, cur, line)
		}
	}
	pythonReport(c, blocks, summary)
	return lr.readErr()
}

func pyBlockLine(c *collector, b *pyBlock, line string) {
	if m := pyFrameRE().FindStringSubmatch(line); m != nil {
		if c.inRepo(m[1]) {
			b.frame = m[1] + ":" + m[2]
		}
		return
	}
	if m := ptLocRE().FindStringSubmatch(line); m != nil {
		b.file, b.line = m[1], atoi(m[2])
		if b.msg == "" {
			b.msg = m[3]
		}
		return
	}
	if e, ok := strings.CutPrefix(line, "E "); ok {
		if strings.Count(b.msg, "\n") < 4 && !strings.HasPrefix(b.msg, "!") {
			if !b.eLines && b.msg != "" && pyExcRE().MatchString(b.msg) && !strings.Contains(b.msg, "\n") && b.file == "" {
				b.msg = "" // pytest's E lines beat a bare exception name (not their own first line)
			}
			b.msg = strings.TrimSpace(strings.TrimPrefix(b.msg+"\n"+strings.TrimSpace(e), "\n"))
			b.eLines = true
		}
		return
	}
	if line != "" && line[0] != ' ' && pyExcRE().MatchString(line) {
		b.msg, b.eLines = line, false // the last exception line of a traceback is the one raised
	}
}

func pythonReport(c *collector, blocks []*pyBlock, summary []evidence.Finding) {
	byTitle := map[string]*pyBlock{}
	for _, b := range blocks {
		if b.file == "" && b.frame != "" {
			b.file, b.line = splitFileLine(b.frame)
		}
		byTitle[b.title] = b
	}
	for _, f := range summary {
		parts := strings.Split(f.ID, "::")
		title := strings.Join(parts[1:], ".")
		if b := byTitle[title]; b != nil || len(parts) == 1 {
			if b == nil {
				b = byTitle[parts[0]]
			}
			if b != nil {
				if b.line > 0 {
					f.File, f.Line = b.file, b.line
				}
				if f.Message == "" || len(b.msg) > len(f.Message) {
					f.Message = cmp.Or(b.msg, f.Message)
				}
				delete(byTitle, b.title)
			}
		}
		f.Message = cmp.Or(f.Message, "failed")
		if f.Kind != evidence.KindBuild {
			c.tests.Failed++
		}
		c.add(f)
	}
	if len(summary) > 0 {
		return
	}
	for _, b := range blocks {
		f := evidence.Finding{Kind: b.kind, ID: b.title, File: b.file, Line: b.line, Message: cmp.Or(b.msg, "failed")}
		if b.kind != evidence.KindBuild {
			c.tests.Failed++
		}
		c.add(f)
	}
}

// ptSummary splits a pytest summary line, "FAILED file.py::test[a b] - msg",
// into its word, node id and message: a parameterized test's id may hold
// spaces and " - " inside its brackets.
func ptSummary(line string) []string {
	if m := ptParamRE().FindStringSubmatch(line); m != nil {
		rest := line[len(m[1])+1:]
		depth := 0
		for i := 0; i < len(rest); i++ {
			switch rest[i] {
			case '[':
				depth++
			case ']':
				depth--
			case ' ':
				if depth == 0 && strings.HasPrefix(rest[i:], " - ") {
					return []string{line, m[1], rest[:i], rest[i+3:]}
				}
			}
		}
		return []string{line, m[1], rest, ""}
	}
	return ptSummaryRE().FindStringSubmatch(line)
}
