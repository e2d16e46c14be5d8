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
	tapResultRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\s*)(not ok|ok)\b\s*(\d+)?\s*(?:-\s*)?(.*?)(?:\s+#\s*(?i:(skip|todo))\b.*)?$`)
	})
	tapFailedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#\s+Failed test (?:'(.*)'|(.*))$`) })
	tapAtRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#\s+at (\S+) line (\d+)\.`) })
	tapYAMLKey  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(location|failureType|error|stack):\s*(.*)$`) })
	proveFileRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\S+\.t) \.+ ?`) })
	jsFileRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.[cm]?[jt]sx?$`) })
)

type tapFail struct {
	f           evidence.Finding
	failureType string
	inYAML      bool
	yamlKey     string
	keyIndent   int      // indentation of the YAML block's keys
	name        string   // the test's description
	diagOnly    bool     // made from "# Failed test" before its result line
	before      []string // "#" lines printed just before the result (a file's stderr)
	file        string   // the file prove ran it in
}

// parseTAP reads TAP (node --test, prove -v, Test::More with stderr merged):
// failing results with their YAML block or "# Failed test … at FILE line N"
// diagnostics; parents whose subtests failed are dropped, and prove's "Dubious"
// or "Bail out!" become crashes.
func parseTAP(br *bufio.Reader, c *collector) error {
	lr := newLineReader(br)
	var fails []*tapFail
	var cur *tapFail
	file := ""
	fileFailed := map[string]bool{}
	var orphans []string // "#" lines outside any failure
	for {
		raw, ok := lr.next()
		if !ok {
			break
		}
		line := StripANSI(string(raw))
		if m := proveFileRE().FindStringSubmatch(line); m != nil {
			file, cur = m[1], nil
			c.parsed = true
		}
		if m := tapResultRE().FindStringSubmatch(line); m != nil && (m[3] != "" || m[4] != "") {
			c.parsed = true
			cur = nil
			before := orphans
			orphans = nil
			directive := strings.ToLower(m[5])
			switch {
			case directive == "skip":
				c.tests.Skipped++
			case directive == "todo":
			case m[2] == "ok":
				c.tests.Passed++
			default:
				cur = nil
				for _, f := range fails { // diagnostics printed before the result (stderr first)
					if f.diagOnly && f.name == m[4] {
						cur, f.diagOnly = f, false
						break
					}
				}
				if cur == nil {
					cur = &tapFail{f: evidence.Finding{Kind: evidence.KindTest, ID: m[4]}, name: m[4], keyIndent: len(m[1]) + 2, before: before}
					if len(fails) < MaxFindings {
						fails = append(fails, cur)
					}
				}
				if cur.f.ID == "" {
					cur.f.ID = "test " + m[3]
				}
				if file != "" {
					cur.file = file
					cur.f.ID = file + " › " + cur.name
					fileFailed[file] = true
				}
			}
			continue
		}
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "Bail out!"):
			c.parsed = true
			c.add(evidence.Finding{Kind: evidence.KindCrash, ID: file, Message: t})
		case strings.HasPrefix(t, "Dubious, test returned") && file != "" && !fileFailed[file] && !failedIn(fails, file):
			c.add(evidence.Finding{Kind: evidence.KindCrash, ID: file, File: file, Unit: file, Message: t})
			fileFailed[file] = true
		case strings.HasPrefix(t, "Parse errors: ") && file != "":
			c.add(evidence.Finding{Kind: evidence.KindCrash, ID: file, File: file, Unit: file, Message: t})
		case tapFailedRE().MatchString(t):
			// "# Failed test 'x'" may come late (stderr): attach to x, or add it.
			m := tapFailedRE().FindStringSubmatch(t)
			name := m[1] + m[2]
			cur = nil
			for _, f := range fails {
				if f.name == name && f.f.Line == 0 {
					cur = f
					break
				}
			}
			if cur == nil && len(fails) < MaxFindings && !strings.HasPrefix(t, "#   Failed (TODO)") {
				cur = &tapFail{f: evidence.Finding{Kind: evidence.KindTest, ID: name}, name: name, diagOnly: true}
				fails = append(fails, cur)
			}
		case tapFooterRE().MatchString(t):
		case line != "" && line[0] != ' ' && line[0] != '\t' && line[0] != '#':
			cur = nil // prove's own lines end a failure's diagnostics
		case cur == nil && strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "# Subtest:"):
			if len(orphans) < 20 {
				orphans = append(orphans, strings.TrimSpace(strings.TrimPrefix(t, "#")))
			}
		case cur != nil:
			if tapDetail(cur, line, t) {
				cur = nil
			}
		}
	}
	seen := map[string]bool{}
	for _, tf := range fails {
		if tf.failureType == "subtestsFailed" || tf.failureType == "cancelledByParent" {
			continue
		}
		key := tf.f.ID + "\x00" + tf.f.File
		if seen[tf.f.ID] && tf.f.Line == 0 {
			continue
		}
		seen[tf.f.ID] = true
		_ = key
		f := tf.f
		f.Message = cmp.Or(strings.TrimSpace(f.Message), "failed")
		if tf.failureType == "testTimeoutFailure" {
			f.Kind = evidence.KindTimeout
		}
		if jsFileRE().MatchString(f.ID) && strings.Contains(f.ID, "/") && (f.Message == "test failed" || f.Message == "failed") {
			f.Kind, f.File, f.Line = evidence.KindBuild, f.ID, 0 // a test file that failed to load
			f.ID = c.rel(f.ID)
			for _, l := range tf.before {
				if strings.Contains(l, "Error") && !strings.HasPrefix(l, "at ") {
					f.Message = l
					break
				}
			}
			if len(tf.before) > 0 {
				if p, ln := splitLoc(tf.before[0]); ln > 0 && p == f.File {
					f.Line = ln
				}
			}
		}
		switch {
		case f.Kind == evidence.KindBuild:
		case tf.file != "": // prove runs a file again, not one of its tests
			f.Unit = tf.file
		case f.File != "":
			f.Unit, f.Test = c.rel(f.File), tf.name
		}
		c.tests.Failed++
		c.add(f)
	}
	return lr.readErr()
}

var tapFooterRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$`)
})

// tapDetail adds one line of a failure's YAML block or # diagnostics; it reports
// whether the failure's details are complete.
func tapDetail(cur *tapFail, line, t string) bool {
	if m := tapAtRE().FindStringSubmatch(t); m != nil {
		cur.f.File = m[1]
		cur.f.Line, _ = strconv.Atoi(m[2])
		return false
	}
	if strings.HasPrefix(t, "# Looks like") || strings.HasPrefix(t, "# Subtest:") {
		return strings.HasPrefix(t, "# Subtest:")
	}
	switch {
	case t == "---":
		cur.inYAML = true
		return false
	case t == "...":
		return true
	case strings.HasPrefix(t, "#") && !cur.inYAML:
		addLine(&cur.f, strings.TrimSpace(strings.TrimPrefix(t, "#")))
		return false
	case !cur.inYAML && indentOf(line) > 0: // free-form diagnostics (mocha's TAP reporter)
		if stackFrameRE().MatchString(line) {
			if m := frameLocRE().FindStringSubmatch(t); m != nil && cur.f.Line == 0 && !strings.Contains(t, "node:") {
				cur.f.File, cur.f.Line = m[1], atoi(m[2])
			}
		} else if strings.Count(cur.f.Message, "\n") < 3 {
			addLine(&cur.f, t)
		}
		return false
	case !cur.inYAML:
		return false
	}
	if m := tapYAMLKey().FindStringSubmatch(line); m != nil && indentOf(line) == cur.keyIndent {
		cur.yamlKey = m[1]
		v := strings.Trim(m[2], `'"`)
		switch m[1] {
		case "location":
			if cur.f.File == "" {
				cur.f.File, cur.f.Line = splitLoc(v)
			}
		case "failureType":
			cur.failureType = v
		case "error":
			if v != "|-" && v != "|" && v != ">-" {
				addLine(&cur.f, v)
			}
		}
		return false
	}
	if indentOf(line) == cur.keyIndent && yamlOtherKey().MatchString(t) {
		cur.yamlKey = ""
		return false
	}
	switch cur.yamlKey {
	case "error":
		addLine(&cur.f, t)
	case "stack":
		if m := frameLocRE().FindStringSubmatch(t); m != nil && !strings.Contains(t, "node:") {
			cur.f.File, cur.f.Line = m[1], atoi(m[2])
			cur.yamlKey = ""
		}
	}
	return false
}

var yamlOtherKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\w+:`) })

func addLine(f *evidence.Finding, s string) {
	if s == "" || len(f.Message) > maxMsgBytes || strings.Count(f.Message, "\n") >= maxMsgLines {
		return
	}
	if f.Message != "" {
		f.Message += "\n"
	}
	f.Message += s
}

// splitLoc splits "/abs/file.js:5:1" into file and line.
func splitLoc(s string) (string, int) {
	if m := frameLocRE().FindStringSubmatch(s); m != nil {
		return m[1], atoi(m[2])
	}
	return s, 0
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// failedIn reports whether a failure was located in file.
func failedIn(fails []*tapFail, file string) bool {
	for _, f := range fails {
		if f.f.File == file {
			return true
		}
	}
	return false
}
