package gate

import (
	"bufio"
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
		c.add(evidence.Finding{Kind: evidence.KindTest, ID: junitID(jc), File: jc.file, Line: jc.line, Message: "passed on rerun", Flaky: true})
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
	f := evidence.Finding{Kind: jc.kind, ID: junitID(jc), File: jc.file, Line: jc.line, Message: orStr(msg, "failed")}
	if p, ln, col := jsLocation(c, jc.body+"\n"+jc.sysout); p != "" && (f.File == "" || f.Line == 0) {
		f.File, f.Line, f.Col = p, ln, col
	}
	if jc.classname == "Test suite failed to run" || jc.message == "Build error" || strings.Contains(jc.name, "[build failed]") {
		f.Kind = evidence.KindBuild
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
