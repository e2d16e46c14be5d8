package decide

import (
	"regexp"
	"slices"
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
	reFailFile = regexp.MustCompile(`^\s*(?:FAIL|FAILED)\s+(\S+\.(?:[cm]?[jt]sx?|py|go|rb|rs|java|kt))\b`)
	reGoFail   = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)
	reGoRun    = regexp.MustCompile(`^=== RUN\s+(\S+)`)
	reBullet   = regexp.MustCompile(`^\s*●\s+(.+)$`)
	reCross    = regexp.MustCompile(`^\s*[×✗]\s+(.+?)(?:\s+\d+m?s)?$`)
	reArrow    = regexp.MustCompile(`^\s*→\s+(.+)$`)
	rePyHead   = regexp.MustCompile(`^(?:FAIL|ERROR): (\w+) \(`)
	reExpected = regexp.MustCompile(`^\s*Expected(?: value)?:\s*(.*)$`)
	reReceived = regexp.MustCompile(`^\s*Received(?: value)?:\s*(.*)$`)
	reWantGot  = regexp.MustCompile(`(?i)\b(?:want|expected)\s+(.+?),\s*(?:got|received|but got)\s+(.+)$`)
	reGotWant  = regexp.MustCompile(`(?i)\bgot\s+(.+?),\s*want\s+(.+)$`)
	reEqWant   = regexp.MustCompile(`^\s*(?:\S+\.go:\d+:\s*)?(.+?) = (.+?), want (.+)$`)
	reToBe     = regexp.MustCompile(`^expected (.+?) to (?:be|equal|deeply equal|strictly equal|deep equal) (.+?)(?:\s*//.*)?$`)
	reErrLine  = regexp.MustCompile(`^\s*(?:E\s+)?([A-Z]\w*(?:Error|Exception)\b.*|panic: .*|error: .*)$`)
	reContain  = regexp.MustCompile(`^(\w[\w.]*)\s+to\s+(?:contain|have|include)(?:\s+property)?\s+['"]?(\w+)['"]?$`)
	reExpectOf = regexp.MustCompile(`expect\(\s*(?:[\w]+\.)*(\w+)\s*\)`)
)

// maxFailures bounds what one output yields.
const maxFailures = 20

// reader walks a test output line by line, keeping the current file and test.
type reader struct {
	file, test, field string
	pending           *failure
	fs                []failure
	failed            []string          // failing tests, in order
	fileOf            map[string]string // the file each failing test is in
	hasItem           map[string]bool   // tests that produced an item
}

func (r *reader) add(f failure) {
	if len(r.fs) < maxFailures {
		r.fs = append(r.fs, finish(f))
		r.hasItem[f.Test] = true
	}
}

func (r *reader) fail(test string) {
	r.test, r.field = test, ""
	r.failed = append(r.failed, test)
	r.fileOf[test] = r.file
}

func (r *reader) at() failure { return failure{File: r.file, Test: r.test, Field: r.field} }

// failures reads the failures a test output shows: Jest/Vitest Expected/Received
// pairs and → lines, Go want/got lines, error lines, and failing test names as the
// fallback, each with its file and test where the output names them.
func failures(out string) []failure {
	r := &reader{hasItem: map[string]bool{}, fileOf: map[string]string{}}
	for _, line := range strings.Split(out, "\n") {
		r.line(strings.TrimRight(line, "\r"))
	}
	if r.pending != nil {
		r.add(*r.pending)
	}
	for _, t := range r.failed {
		parent := func(s string) bool { return strings.HasPrefix(s, t+"/") }
		if r.hasItem[t] || t == "" || slices.ContainsFunc(r.failed, parent) ||
			slices.ContainsFunc(r.fs, func(f failure) bool { return parent(f.Test) }) {
			continue
		}
		r.hasItem[t] = true
		f := failure{File: r.fileOf[t], Test: t, Message: "Test failed: " + t}
		if f.File != "" {
			f.Message += " (" + f.File + ")"
		}
		if len(r.fs) < maxFailures {
			r.fs = append(r.fs, f)
		}
	}
	return r.fs
}

func (r *reader) line(line string) {
	sub := func(re *regexp.Regexp) []string { return re.FindStringSubmatch(line) }
	if m := sub(reFailFile); m != nil {
		r.file, r.test = m[1], ""
		return
	}
	for _, re := range []*regexp.Regexp{reGoFail, reBullet, reCross, rePyHead} {
		if m := sub(re); m != nil {
			name := m[1]
			if i := strings.LastIndexAny(name, "›>"); i >= 0 && re != reGoFail {
				name = strings.TrimSpace(name[i+len(string([]rune(name[i:])[0])):])
			}
			r.fail(name)
			return
		}
	}
	if m := sub(reGoRun); m != nil {
		r.test, r.field = m[1], ""
		return
	}
	if m := sub(reExpectOf); m != nil && m[1] != "received" && m[1] != "expected" {
		r.field = m[1]
	}
	switch {
	case reExpected.MatchString(line):
		f := r.at()
		f.Expected = strings.TrimSpace(sub(reExpected)[1])
		r.pending = &f
	case reReceived.MatchString(line) && r.pending != nil:
		r.pending.Received = strings.TrimSpace(sub(reReceived)[1])
		r.add(*r.pending)
		r.pending = nil
	case reArrow.MatchString(line):
		msg := strings.TrimSpace(sub(reArrow)[1])
		f := r.at()
		if m := reToBe.FindStringSubmatch(msg); m != nil {
			f.Expected, f.Received = m[2], m[1]
		} else {
			f.Message = "Test failed: " + clip(msg, 120)
		}
		r.add(f)
	case reEqWant.MatchString(line):
		m := sub(reEqWant)
		f := r.at()
		f.Field, f.Expected, f.Received = m[1], m[3], m[2]
		r.add(f)
	case reWantGot.MatchString(line):
		m := sub(reWantGot)
		f := r.at()
		f.Expected, f.Received = m[1], m[2]
		r.add(f)
	case reGotWant.MatchString(line):
		m := sub(reGotWant)
		f := r.at()
		f.Expected, f.Received = m[2], m[1]
		r.add(f)
	case reErrLine.MatchString(line) && !r.hasItem[r.test]:
		f := r.at()
		f.Message = "Error: " + clip(strings.TrimSpace(sub(reErrLine)[1]), 120)
		r.add(f)
	}
}

// finish words a failure as an actionable item: "Test failed: token missing
// userId" for an expectation that a value contains a field which came back
// undefined, "Test failed: expected X, received Y" otherwise.
func finish(f failure) failure {
	if f.Message != "" {
		return withWhere(f)
	}
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
	return withWhere(f)
}

// withWhere appends the file and test a failure belongs to.
func withWhere(f failure) failure {
	var where []string
	for _, w := range []string{f.File, f.Test} {
		if w != "" {
			where = append(where, w)
		}
	}
	if len(where) > 0 {
		f.Message += " (" + strings.Join(where, " › ") + ")"
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
