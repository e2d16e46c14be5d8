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
	gtsTestnameRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(PASS|FAIL|SKIP) (\S+?)\.(\S+)( \(re-run \d+\))? \(`)
	})
	gtsBlockRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^=== (FAIL|SKIP): (\S+) (\S*) ?(\(re-run \d+\) )?\(`)
	})
	gtsDoneRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^DONE (?:(\d+) runs?, )?(\d+) tests?(?:, (\d+) skipped)?(?:, (\d+) failures?)?(?:, (\d+) errors?)?`)
	})
)

type gtsBlock struct {
	pkg, test string
	t         *goTest
}

// parseGotestsum reads gotestsum's terminal output: the "=== Failed" and
// "=== Errors" summary sections, the testname lines (a test that passes on a
// re-run is flaky) and the DONE line.
func parseGotestsum(br *bufio.Reader, c *collector) error {
	lr := newLineReader(br)
	var blocks []*gtsBlock
	seen := map[string]bool{}
	rerunPassed := map[string]bool{}
	var failedLines []string // "pkg\x00test" from testname lines, when there is no summary
	section := ""
	var cur *goTest
	doneSeen := false
	var tests, skipped int
	for {
		raw, ok := lr.next()
		if !ok {
			break
		}
		line := StripANSI(string(raw))
		if m := gtsDoneRE().FindStringSubmatch(line); m != nil {
			c.parsed = true
			if !doneSeen {
				tests, _ = strconv.Atoi(m[2])
				skipped, _ = strconv.Atoi(m[3])
				doneSeen = true
			}
			section, cur = "", nil
			continue
		}
		switch line {
		case "=== Failed", "=== Skipped", "=== Errors":
			c.parsed = true
			section, cur = line, nil
			continue
		}
		if m := gtsTestnameRE().FindStringSubmatch(line); m != nil && section == "" {
			c.parsed = true
			key := m[2] + "\x00" + m[3]
			switch {
			case m[1] == "PASS" && m[4] != "":
				rerunPassed[key] = true
			case m[1] == "FAIL" && len(failedLines) < MaxFindings:
				failedLines = append(failedLines, key)
			}
			continue
		}
		switch section {
		case "=== Failed":
			if m := gtsBlockRE().FindStringSubmatch(line); m != nil {
				key := m[2] + "\x00" + m[3]
				cur = nil
				if !seen[key] && len(blocks) < MaxFindings {
					seen[key] = true
					cur = &goTest{pkg: m[2], name: m[3]}
					blocks = append(blocks, &gtsBlock{pkg: m[2], test: m[3], t: cur})
				}
				continue
			}
			if cur != nil {
				cur.observe(line, c)
			}
		case "=== Errors":
			if f, ok := buildFinding(StripANSI(line), ""); ok {
				c.add(f)
			}
		}
	}
	if len(blocks) == 0 {
		for _, k := range failedLines {
			pkg, test, _ := strings.Cut(k, "\x00")
			if !seen[k] {
				seen[k] = true
				blocks = append(blocks, &gtsBlock{pkg: pkg, test: test, t: &goTest{pkg: pkg, name: test}})
			}
		}
	}
	gotestsumReport(c, blocks, rerunPassed)
	if doneSeen {
		c.tests.Skipped = skipped
		c.tests.Passed = max(0, tests-skipped-c.tests.Failed)
	}
	return lr.readErr()
}

func gotestsumReport(c *collector, blocks []*gtsBlock, rerunPassed map[string]bool) {
	names := map[string][]string{}
	for _, b := range blocks {
		names[b.pkg] = append(names[b.pkg], b.test)
	}
	builds := len(c.findings)
	timedOut := map[string]bool{}
	for _, b := range blocks {
		t := b.t
		t.pkg = b.pkg
		if b.test == "" { // the package itself: build failure, timeout, TestMain crash
			switch {
			case t.timeout != "":
				for _, name := range t.running {
					if isLeaf(name, t.running) {
						timedOut[b.pkg+"\x00"+name] = true
						c.tests.Failed++
						c.add(evidence.Finding{Kind: evidence.KindTimeout, ID: b.pkg + "." + name, Unit: gtsUnit(c, b.pkg), Test: name, Message: t.timeout})
					}
				}
			case t.buildFailed:
				if builds == 0 {
					c.add(evidence.Finding{Kind: evidence.KindBuild, ID: b.pkg, Message: "build failed"})
				}
			case len(names[b.pkg]) == 1:
				f := t.unfinished(c, b.pkg, "")
				f.Unit = gtsUnit(c, b.pkg)
				c.add(f)
			}
		}
	}
	for _, b := range blocks {
		t := b.t
		if b.test == "" || timedOut[b.pkg+"\x00"+b.test] {
			continue
		}
		if !isLeaf(b.test, names[b.pkg]) && len(t.lines) == 0 && t.panic == "" && t.timeout == "" && !t.race {
			continue
		}
		f := t.finding(c, b.pkg+"."+b.test)
		if d := b.pkg; f.File != "" && !strings.Contains(f.File, "/") && c.pkgDir(b.pkg) == "" {
			f.File = d + "/" + f.File // gotestsum names packages relative to the module
		}
		f.Unit = gtsUnit(c, b.pkg)
		f.Flaky = rerunPassed[b.pkg+"\x00"+b.test]
		if !f.Flaky {
			c.tests.Failed++
		}
		c.add(f)
	}
}

// gtsUnit is the package gotestsum names (relative to the module it runs in)
// as go test selects it: under the module's path when the module is known,
// else as a directory ("./calc"); a full import path is kept.
func gtsUnit(c *collector, pkg string) string {
	switch {
	case pkg == "" || pkg == ".":
		return cmp.Or(c.module, ".")
	case c.module != "" && (pkg == c.module || strings.HasPrefix(pkg, c.module+"/")):
		return pkg
	case c.module != "":
		return c.module + "/" + pkg
	case strings.Contains(strings.SplitN(pkg, "/", 2)[0], "."):
		return pkg // a host name: an import path already
	}
	return "./" + pkg
}
