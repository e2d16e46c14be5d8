package decide

import (
	"regexp"
	"strings"
)

// failure is one failure read from a test output.
type failure struct {
	File     string // test file, when the output names it
	Test     string // test name, when the output names it
	Expected string
	Received string
	Message  string // the item text
	Field    string // the value the assertion is about, when it can be told
}

var (
	reFailFile = regexp.MustCompile(`^\s*(?:FAIL|FAILED)\s+(\S+\.\S+)`)
	reGoFail   = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)
	reBullet   = regexp.MustCompile(`^\s*●\s+(.+)$`)
	reExpected = regexp.MustCompile(`^\s*Expected(?: value)?:\s*(.*)$`)
	reReceived = regexp.MustCompile(`^\s*Received(?: value)?:\s*(.*)$`)
	reWantGot  = regexp.MustCompile(`(?i)\b(?:want|expected)\s+(.+?),\s*(?:got|received|but got)\s+(.+)$`)
	reGotWant  = regexp.MustCompile(`(?i)\bgot\s+(.+?),\s*want\s+(.+)$`)
	reEqWant   = regexp.MustCompile(`^\s*(?:\S+\.go:\d+:\s*)?(.+?) = (.+?), want (.+)$`)
	reErrLine  = regexp.MustCompile(`(?i)^\s*(?:E\s+)?(\w*(?:Error|Exception)\b:?.*|panic:.*|error:.*)$`)
	reContain  = regexp.MustCompile(`^(\w[\w.]*)\s+to\s+(?:contain|have|include)(?:\s+property)?\s+['"]?(\w+)['"]?$`)
	reExpectOf = regexp.MustCompile(`expect\(\s*[\w.]*?\.?(\w+)\s*\)`)
)

// failures reads the failures a test output shows: Jest/Vitest Expected/Received
// pairs, Go want/got lines, error lines, and FAIL lines as the fallback.
func failures(out string) []failure {
	var fs []failure
	var file, test, field string
	var pending *failure
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case reFailFile.MatchString(line):
			file = reFailFile.FindStringSubmatch(line)[1]
		case reGoFail.MatchString(line):
			test = reGoFail.FindStringSubmatch(line)[1]
		case reBullet.MatchString(line):
			test = strings.TrimSpace(reBullet.FindStringSubmatch(line)[1])
		case reExpectOf.MatchString(line):
			field = reExpectOf.FindStringSubmatch(line)[1]
		case reExpected.MatchString(line):
			pending = &failure{File: file, Test: test, Field: field, Expected: strings.TrimSpace(reExpected.FindStringSubmatch(line)[1])}
		case reReceived.MatchString(line) && pending != nil:
			pending.Received = strings.TrimSpace(reReceived.FindStringSubmatch(line)[1])
			fs = append(fs, finish(*pending))
			pending = nil
		case reWantGot.MatchString(line):
			m := reWantGot.FindStringSubmatch(line)
			fs = append(fs, finish(failure{File: file, Test: test, Field: field, Expected: m[1], Received: m[2]}))
		case reEqWant.MatchString(line):
			m := reEqWant.FindStringSubmatch(line)
			fs = append(fs, finish(failure{File: file, Test: test, Field: m[1], Expected: m[3], Received: m[2]}))
		case reGotWant.MatchString(line):
			m := reGotWant.FindStringSubmatch(line)
			fs = append(fs, finish(failure{File: file, Test: test, Field: field, Expected: m[2], Received: m[1]}))
		case reErrLine.MatchString(line) && len(fs) == 0:
			fs = append(fs, failure{File: file, Test: test, Message: "Error: " + clip(strings.TrimSpace(line), 120)})
		}
	}
	if pending != nil {
		fs = append(fs, finish(*pending))
	}
	if len(fs) == 0 && (file != "" || test != "") {
		fs = append(fs, failure{File: file, Test: test, Message: "Test failed: " + strings.TrimSpace(test+" "+file)})
	}
	return fs
}

// finish words a failure as an actionable item: "Test failed: token missing
// userId" for an expectation that a value contains a field which came back
// undefined, "Test failed: expected X, received Y" otherwise.
func finish(f failure) failure {
	if m := reContain.FindStringSubmatch(f.Expected); m != nil && isNothing(f.Received) {
		f.Message = "Test failed: " + m[1] + " missing " + m[2]
		if f.Field == "" {
			f.Field = m[2]
		}
	} else {
		f.Message = "Test failed: expected " + clip(f.Expected, 60) + ", received " + clip(f.Received, 60)
		if f.Field != "" {
			f.Message = "Test failed: " + f.Field + " expected " + clip(f.Expected, 60) + ", received " + clip(f.Received, 60)
		}
	}
	switch {
	case f.File != "":
		f.Message += " (" + f.File + ")"
	case f.Test != "":
		f.Message += " (" + f.Test + ")"
	}
	return f
}

func isNothing(s string) bool {
	switch strings.TrimSpace(s) {
	case "", "undefined", "null", "nil", "<nil>", "None":
		return true
	}
	return false
}

var reNumber = regexp.MustCompile(`^-?\d+(\.\d+)?$`)

// typeMismatch reports whether one side is a number and the other the same
// number quoted as a string.
func typeMismatch(exp, rec string) bool {
	uq := func(s string) (string, bool) {
		s = strings.TrimSpace(s)
		if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
			return s[1 : len(s)-1], true
		}
		return s, false
	}
	e, eq := uq(exp)
	r, rq := uq(rec)
	return e == r && eq != rq && reNumber.MatchString(e)
}

// reviewItems splits reviewer feedback into items: one per line or sentence.
func reviewItems(fb string) []string {
	var out []string
	for _, line := range strings.Split(fb, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*•0123456789.) "))
		for _, s := range strings.SplitAfter(line, ". ") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, "Review: "+clip(s, 140))
			}
		}
	}
	return out
}
