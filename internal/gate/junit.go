package gate

import (
	"bufio"
	"cmp"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// junitCase is what is kept of one <testcase> while streaming.
type junitCase struct {
	attrs                 []byte // raw attributes, decoded only for a case that failed
	name, classname, file string
	line                  int
	kind                  evidence.Kind // "" while passing
	skipped, flaky        bool
	message, body         string
	sysout                string
}

// parseJUnit streams JUnit XML with encoding/xml tokens: testcases at any depth
// (also directly under <testsuites>), several concatenated documents, failure and
// error children (error of a "Test suite failed to run" case is a build finding),
// surefire flakyFailure (flaky) and rerunFailure, pytest's file/line attributes.
func parseJUnit(br *bufio.Reader, c *collector) error {
	sc := &xmlScanner{br: br}
	var cur *junitCase
	var text *string // where character data goes
	var tok xmlToken
	reuse := &junitCase{}
	first := len(c.findings)
	defer func() { junitTidy(c, first) }()
	for sc.next(&tok) {
		switch tok.kind {
		case 't':
			if text != nil && len(*text) < 4*maxMsgBytes {
				t := tok.text[:min(len(tok.text), 4*maxMsgBytes)]
				if tok.cdata {
					*text += string(t)
				} else {
					*text += xmlUnescape(t)
				}
			}
		case 's':
			junitStart(c, &tok, &cur, &text, reuse)
			if tok.self {
				junitEnd(c, tok.name, &cur, &text)
			}
		case 'e':
			junitEnd(c, tok.name, &cur, &text)
		}
	}
	return sc.readErr()
}

func junitStart(c *collector, t *xmlToken, curp **junitCase, text **string, reuse *junitCase) {
	cur := *curp
	switch t.name {
	case "testsuite", "testsuites":
		c.parsed = true
	case "testcase":
		c.parsed = true
		*reuse = junitCase{attrs: append(reuse.attrs[:0], t.attrs...)}
		*curp = reuse
	case "failure", "error", "rerunFailure", "rerunError":
		if cur == nil {
			return
		}
		if t.name == "error" && cur.kind == "" {
			cur.kind = evidence.KindCrash
		} else if cur.kind == "" || t.name == "failure" {
			cur.kind = evidence.KindTest
		}
		if cur.message == "" {
			cur.message = xmlAttr(t.attrs, "message")
			if ty := xmlAttr(t.attrs, "type"); strings.Contains(ty, "Timeout") {
				cur.kind = evidence.KindTimeout
			}
			*text = &cur.body
		}
	case "flakyFailure", "flakyError":
		if cur != nil {
			cur.flaky = true
		}
	case "skipped":
		if cur != nil {
			cur.skipped = true
		}
	case "system-out":
		if cur != nil && cur.sysout == "" && cur.kind != "" {
			*text = &cur.sysout
		}
	}
}

func junitEnd(c *collector, name string, curp **junitCase, text **string) {
	switch name {
	case "failure", "error", "rerunFailure", "rerunError", "system-out":
		*text = nil
	case "testcase":
		if *curp != nil {
			junitDone(c, *curp)
		}
		*curp, *text = nil, nil
	}
}

func junitDone(c *collector, jc *junitCase) {
	if jc.kind != "" || jc.flaky {
		jc.name, jc.classname, jc.file = xmlAttr(jc.attrs, "name"), xmlAttr(jc.attrs, "classname"), xmlAttr(jc.attrs, "file")
		jc.line, _ = strconv.Atoi(xmlAttr(jc.attrs, "line"))
	}
	switch {
	case jc.kind == "" && jc.skipped:
		c.tests.Skipped++
		return
	case jc.kind == "" && jc.flaky:
		c.tests.Passed++
		c.add(evidence.Finding{Kind: evidence.KindTest, ID: junitID(jc), File: jc.file, Line: jc.line, Message: "passed on rerun", Flaky: true, Unit: jc.classname, Test: jc.name})
		return
	case jc.kind == "":
		c.tests.Passed++
		return
	case jc.skipped: // node's todo: skipped and failed
		c.tests.Skipped++
		return
	}
	c.tests.Failed++
	msg := jc.message
	if msg == "" || msg == "Failed" || msg == "test failed" {
		if m := jsMessage(jc.body); m != "" {
			msg = m
		} else if jc.sysout != "" {
			msg = jsMessage(jc.sysout)
		}
	}
	f := evidence.Finding{Kind: jc.kind, ID: junitID(jc), File: jc.file, Line: jc.line, Message: cmp.Or(msg, "failed"), Unit: jc.classname, Test: jc.name}
	switch {
	case jsFileRE().MatchString(jc.file):
		// jest-junit with its file attribute: the classname is the test's
		// describe blocks and title; the file is what jest runs again.
		f.Unit = jc.file
	case jsFileRE().MatchString(jc.classname) && jc.name == jc.classname && jc.kind == evidence.KindTest:
		// vitest's junit: a test file that failed to load is a case named
		// for the file (a RollupError, a SyntaxError), no test.
		f.Kind, f.Test = evidence.KindBuild, ""
	case jsFileRE().MatchString(jc.classname) && strings.Contains(jc.name, " > "):
		// vitest's junit: "describe > test", named for -t as jest-json's are.
		f.Test = strings.ReplaceAll(jc.name, " > ", " › ")
	}
	if goBody(jc.body) { // gotestsum, go-junit-report: the body is go test output
		t := &goTest{pkg: jc.classname}
		for _, l := range strings.Split(jc.body, "\n") {
			t.observe(l, c)
		}
		g := t.finding(c, f.ID)
		if t.buildFailed {
			g.Kind = evidence.KindBuild
		}
		if g.Message != "failed" || g.Kind != evidence.KindTest {
			f.Kind, f.Message, f.File, f.Line = g.Kind, g.Message, g.File, g.Line
		} else {
			f.Message = "failed"
		}
		c.add(f)
		return
	}
	if p, ln, col := jsLocation(c, jc.body+"\n"+jc.sysout); p != "" && (f.File == "" || f.Line == 0) {
		f.File, f.Line, f.Col = p, ln, col
	}
	if jc.classname == "Test suite failed to run" || jc.message == "Build error" || strings.Contains(jc.name, "[build failed]") {
		f.Kind = evidence.KindBuild
		f.Test = ""
		if jc.classname == "Test suite failed to run" {
			f.ID, f.Message = jc.name, suiteError(jc.body)
		}
	}
	if strings.Contains(jc.message, "No test result found") {
		f.Kind = evidence.KindCrash
	}
	c.add(f)
}

func junitID(jc *junitCase) string {
	if jc.classname == "" || jc.classname == jc.name || strings.HasPrefix(jc.name, jc.classname) {
		return jc.name
	}
	return jc.classname + "." + jc.name
}

// goBody reports whether a failure body is go test output.
func goBody(b string) bool {
	return strings.Contains(b, "--- FAIL") || strings.Contains(b, "_test.go:") || strings.Contains(b, "[build failed]") || strings.Contains(b, "panic: ")
}

// junitTidy drops exact duplicates (jest-junit repeats suite errors) and Go parent
// tests that failed only because a subtest did.
func junitTidy(c *collector, first int) {
	fs := c.findings[first:]
	seen := map[evidence.Finding]bool{}
	builds := map[string]bool{}
	failing := map[string]bool{}
	for _, f := range fs {
		failing[f.ID] = true
	}
	out := fs[:0]
	for _, f := range fs {
		if seen[f] {
			c.tests.Failed--
			continue
		}
		seen[f] = true
		if f.Kind == evidence.KindBuild {
			if builds[f.ID+"\x00"+f.File] {
				c.tests.Failed--
				continue
			}
			builds[f.ID+"\x00"+f.File] = true
		}
		if strings.EqualFold(f.Message, "failed") && f.Kind == evidence.KindTest && hasChild(f.ID, failing) {
			c.tests.Failed--
			continue
		}
		out = append(out, f)
	}
	c.findings = c.findings[:first+len(out)]
}

func hasChild(id string, ids map[string]bool) bool {
	for other := range ids {
		if strings.HasPrefix(other, id+"/") {
			return true
		}
	}
	return false
}
