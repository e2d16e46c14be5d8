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
	cargoTestRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^test (\S+)(?: - should panic)? \.\.\. (ok|FAILED|ignored)`)
	})
	cargoBlockRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^---- (\S+) stdout ----$`) })
	cargoPanicRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^thread '([^']*)'(?: \(\d+\))? panicked at ([^:]+):(\d+):(\d+):?(.*)$`)
	})
	cargoNoPanicRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^note: test did not panic as expected(?: at ([^:]+):(\d+):(\d+))?`)
	})
	rustErrRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(error|warning)(?:\[(E\d+)\])?: (.*)$`) })
	rustLocRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*--> ([^:]+):(\d+):(\d+)`) })
	cargoResultRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored`)
	})
	cargoRunRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s+(?:Running (?:unittests )?(\S+)|Doc-tests (\S+))`)
	})
)

// parseCargo reads cargo test's text (stdout and stderr merged): test results,
// the panic of each failed test from its "---- name stdout ----" block (cut at
// "stack backtrace:"), and rustc errors with their " --> file:line:col".
func parseCargo(br *bufio.Reader, c *collector) error {
	lr := newLineReader(br)
	failed := map[string]int{} // test → finding index
	var order []string
	var cur string // test whose stdout block is open
	unit := ""     // the test target running ("src/lib.rs", "tests/api.rs", "doc")
	units := map[string]string{}
	var rustErr *evidence.Finding
	inTrace := false
	flushErr := func() {
		if rustErr != nil {
			c.add(*rustErr)
			rustErr = nil
		}
	}
	for {
		raw, ok := lr.next()
		if !ok {
			break
		}
		line := StripANSI(string(raw))
		if m := cargoRunRE().FindStringSubmatch(line); m != nil {
			unit = m[1]
			if m[2] != "" {
				unit = "doc"
			}
			continue
		}
		if m := cargoTestRE().FindStringSubmatch(line); m != nil {
			c.parsed = true
			if m[2] == "FAILED" {
				if _, ok := units[m[1]]; !ok && len(units) < MaxFindings {
					units[m[1]] = unit
				}
				if _, seen := failed[m[1]]; !seen && len(order) < MaxFindings {
					failed[m[1]] = -1
					order = append(order, m[1])
				}
			}
			continue
		}
		if m := cargoResultRE().FindStringSubmatch(line); m != nil {
			c.parsed = true
			p, _ := strconv.Atoi(m[1])
			s, _ := strconv.Atoi(m[3])
			c.tests.Passed += p
			c.tests.Skipped += s
			cur = ""
			continue
		}
		if m := rustErrRE().FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[3], "test failed") && !strings.HasPrefix(m[3], "could not compile") && !strings.HasPrefix(m[3], "aborting") && !strings.Contains(m[3], "target failed") && !strings.HasPrefix(m[3], "build failed") {
			flushErr()
			c.parsed = true
			f := evidence.Finding{Kind: evidence.KindBuild, Tool: "rustc", ID: m[2], Message: m[3]}
			if m[1] == "warning" {
				f.Kind, f.Severity = evidence.KindLint, evidence.SeverityWarning
			}
			rustErr = &f
			continue
		}
		if m := rustLocRE().FindStringSubmatch(line); m != nil && rustErr != nil && rustErr.File == "" {
			rustErr.File = m[1]
			rustErr.Line, _ = strconv.Atoi(m[2])
			rustErr.Col, _ = strconv.Atoi(m[3])
			continue
		}
		if m := cargoBlockRE().FindStringSubmatch(line); m != nil {
			cur, inTrace = m[1], false
			if _, ok := failed[m[1]]; !ok && len(order) < MaxFindings {
				failed[m[1]] = -1
				order = append(order, m[1])
			}
			continue
		}
		if cur == "" {
			continue
		}
		switch {
		case line == "failures:":
			cur = ""
		case strings.HasPrefix(line, "stack backtrace:"):
			inTrace = true
		case inTrace:
		default:
			cargoBlockLine(c, failed, cur, line)
		}
	}
	flushErr()
	for _, name := range order {
		if failed[name] == -1 {
			c.add(evidence.Finding{Kind: evidence.KindTest, ID: name, Message: "failed"})
			failed[name] = len(c.findings) - 1
		}
	}
	for _, name := range order {
		if i := failed[name]; i >= 0 && i < len(c.findings) {
			c.findings[i].Unit, c.findings[i].Test = units[name], name
		}
	}
	c.tests.Failed = len(order)
	return lr.readErr()
}

// cargoBlockLine adds a line of a failed test's output to its finding.
func cargoBlockLine(c *collector, failed map[string]int, test, line string) {
	i := failed[test]
	if m := cargoPanicRE().FindStringSubmatch(line); m != nil && i == -1 {
		ln, _ := strconv.Atoi(m[3])
		col, _ := strconv.Atoi(m[4])
		c.add(evidence.Finding{Kind: evidence.KindTest, ID: test, File: m[2], Line: ln, Col: col, Message: strings.TrimSpace(m[5])})
		failed[test] = len(c.findings) - 1
		return
	}
	if m := cargoNoPanicRE().FindStringSubmatch(line); m != nil && i == -1 {
		ln, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		c.add(evidence.Finding{Kind: evidence.KindTest, ID: test, File: m[1], Line: ln, Col: col, Message: "test did not panic as expected"})
		failed[test] = len(c.findings) - 1
		return
	}
	t := strings.TrimSpace(line)
	if i < 0 || i >= len(c.findings) || t == "" || strings.HasPrefix(t, "note: run with `RUST_BACKTRACE") {
		return
	}
	if f := &c.findings[i]; len(f.Message) < maxMsgBytes && strings.Count(f.Message, " | ") < maxMsgLines {
		if f.Message == "" {
			f.Message = t
		} else {
			f.Message += " | " + t
		}
	}
}
