package gate

import (
	"bufio"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// junitCase is what is kept of one <testcase> while streaming.
type junitCase struct {
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
	dec := xml.NewDecoder(br)
	dec.Strict = false
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var cur *junitCase
	var text *string // where character data goes
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			// A second document after the first: skip its prolog and go on.
			var se *xml.SyntaxError
			if errors.As(err, &se) && strings.Contains(se.Msg, "unexpected") {
				dec = xml.NewDecoder(br)
				dec.Strict = false
				continue
			}
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "testsuite", "testsuites":
				c.parsed = true
			case "testcase":
				c.parsed = true
				cur = &junitCase{name: attr(t, "name"), classname: attr(t, "classname"), file: attr(t, "file")}
				cur.line, _ = strconv.Atoi(attr(t, "line"))
			case "failure", "error", "rerunFailure", "rerunError":
				if cur != nil {
					if t.Name.Local == "error" && cur.kind == "" {
						cur.kind = evidence.KindCrash
					} else if cur.kind == "" || t.Name.Local == "failure" {
						cur.kind = evidence.KindTest
					}
					if cur.message == "" {
						cur.message = attr(t, "message")
						if ty := attr(t, "type"); strings.Contains(ty, "Timeout") {
							cur.kind = evidence.KindTimeout
						}
						text = &cur.body
					}
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
				if cur != nil && cur.sysout == "" {
					text = &cur.sysout
				}
			}
		case xml.CharData:
			if text != nil && len(*text) < 4*maxMsgBytes {
				*text += string(t[:min(len(t), 4*maxMsgBytes)])
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "failure", "error", "rerunFailure", "rerunError", "system-out":
				text = nil
			case "testcase":
				if cur != nil {
					junitDone(c, cur)
				}
				cur = nil
			}
		}
	}
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func junitDone(c *collector, jc *junitCase) {
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
