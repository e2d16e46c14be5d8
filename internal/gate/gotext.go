package gate

import (
	"bufio"
	"cmp"
	"regexp"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/evidence"
)

var (
	goResultRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*)--- (FAIL|PASS|SKIP): (\S+) \(`) })
	goResultAny = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`--- (PASS|SKIP): \S+ \(`) })
	goRunRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^=== (RUN|CONT|NAME)\s+(\S+)`) })
	goPkgRE     = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(ok|FAIL)\s+(\S+)(\s+(\[build failed\]|\[setup failed\]))?(\s|$)`)
	})
)

// goTextPkg is the state of one package's plain go test output until its result line.
type goTextPkg struct {
	tests  map[string]*goTest
	order  []string // failed tests, in the order reported
	curRun *goTest  // the test the -v output is currently attributed to
	cur    *goTest  // the test whose --- FAIL block is open
	indent int
	pk     *goTest        // output outside any test
	builds int            // build findings since the last package line
	byID   map[string]int // build findings of the whole output, per package directory (shared)
}

func newGoTextPkg() *goTextPkg { return &goTextPkg{tests: map[string]*goTest{}, pk: &goTest{}} }

func (s *goTextPkg) test(name string) *goTest {
	t := s.tests[name]
	if t == nil {
		t = &goTest{name: name}
		if len(s.tests) < maxRunning {
			s.tests[name] = t
		}
	}
	return t
}

// parseGoText reads plain or -v go test output and go build / go vet lines.
func parseGoText(br *bufio.Reader, c *collector) error {
	lr := newLineReader(br)
	s := newGoTextPkg()
	buildIDs := map[string]int{}
	s.byID = buildIDs
	buildPkg := ""
	for {
		raw, ok := lr.next()
		if !ok {
			break
		}
		line := StripANSI(string(raw))
		switch {
		case strings.HasPrefix(line, "# "):
			if h := strings.TrimPrefix(line, "# "); !strings.HasPrefix(h, "[") {
				buildPkg = stripTestSuffix(h)
			}
			s.cur, s.curRun = nil, nil
			continue
		case goPkgRE().MatchString(line):
			m := goPkgRE().FindStringSubmatch(line)
			c.parsed = true
			goTextPackage(c, s, m[2], m[1] == "FAIL", m[4])
			s = newGoTextPkg()
			s.byID = buildIDs
			continue
		case strings.HasPrefix(line, "?   \t"):
			c.parsed = true
			continue
		}
		if f, ok := buildFinding(line, c.shortPkg(buildPkg)); ok {
			c.parsed = true
			c.add(f)
			s.builds++
			buildIDs[f.ID]++
			continue
		}
		if m := goRunRE().FindStringSubmatch(line); m != nil {
			c.parsed = true
			s.curRun, s.cur = s.test(m[2]), nil
			continue
		}
		if m := goResultRE().FindStringSubmatch(line); m != nil {
			c.parsed = true
			switch m[2] {
			case "PASS":
				c.tests.Passed++
			case "SKIP":
				c.tests.Skipped++
			case "FAIL":
				t := s.test(m[3])
				if len(s.order) < MaxFindings {
					s.order = append(s.order, m[3])
				}
				s.cur, s.indent = t, len(m[1])
			}
			continue
		}
		if goResultAny().MatchString(line) {
			c.tests.Passed++ // output without a trailing newline glued to the result line
		}
		switch {
		case s.pk.stack:
			s.pk.observe(line, c)
		case s.cur != nil && (indentOf(line) > s.indent || s.cur.stack || strings.HasPrefix(line, "panic: ")):
			s.cur.observe(line, c)
		case s.curRun != nil && indentOf(line) > 0:
			s.curRun.observe(line, c)
		default:
			s.cur = nil
			s.pk.observe(line, c)
		}
	}
	if len(s.order) > 0 || s.pk.timeout != "" {
		goTextPackage(c, s, "", true, "")
	}
	return lr.readErr()
}

func indentOf(s string) int {
	n := 0
	for _, r := range s {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// goTextPackage reports the failures of one package once its result line is seen.
func goTextPackage(c *collector, s *goTextPkg, pkg string, failed bool, note string) {
	id := c.shortPkg(pkg)
	prefix := id + "."
	s.pk.pkg = pkg
	if pkg == "" {
		prefix = ""
	}
	reported := 0
	seen := map[string]bool{}
	for _, name := range s.order {
		t := s.tests[name]
		if t == nil || seen[name] {
			continue
		}
		seen[name] = true
		hasChild := !isLeaf(name, s.order)
		if hasChild && len(t.lines) == 0 && t.panic == "" && t.timeout == "" && !t.race {
			continue
		}
		t.pkg = pkg
		f := t.finding(c, prefix+name)
		c.tests.Failed++
		c.add(f)
		reported++
	}
	if s.pk.timeout != "" {
		for _, name := range s.pk.running {
			if seen[name] || !isLeaf(name, s.pk.running) {
				continue
			}
			c.tests.Failed++
			f := evidence.Finding{Kind: evidence.KindTimeout, ID: prefix + name, Message: s.pk.timeout}
			if pkg != "" {
				f.Unit, f.Test = pkg, name
			}
			if len(s.pk.running) == 1 && s.pk.frame != "" {
				f.File, f.Line = splitFileLine(s.pk.frame)
			}
			c.add(f)
			reported++
		}
	}
	if !failed || reported > 0 || s.builds > 0 {
		return
	}
	switch {
	case note == "[build failed]" && s.byID[id] > 0:
	case note == "[build failed]":
		c.add(evidence.Finding{Kind: evidence.KindBuild, ID: id, Message: "build failed"})
	case s.pk.panic != "" || s.pk.timeout != "":
		c.add(s.pk.unfinished(c, pkgPath(pkg), ""))
	default:
		c.add(evidence.Finding{Kind: evidence.KindCrash, ID: pkgPath(pkg), Unit: pkgPath(pkg), Message: "package failed: " + cmp.Or(s.pk.last, "no test reported a failure")})
	}
}
