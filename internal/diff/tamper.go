package diff

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/textcut"
)

// Tamper finding IDs, in [evidence.Finding.ID] of the findings in
// [evidence.DiffFacts.Tamper].
const (
	TamperTestDeleted    = "test_deleted"    // a test file was removed (error)
	TamperTestModified   = "test_modified"   // an existing test file was edited (warning)
	TamperSkipAdded      = "skip_added"      // a skip, focus or todo marker was added (error)
	TamperAssertRemoved  = "assert_removed"  // assertions were removed, net of those added (error)
	TamperGoldenModified = "golden_modified" // an expected-output file was rewritten (warning)
)

// isTestFile reports whether p is a test by the conventions of the common
// languages: Go _test.go, JS/TS .test./.spec. files, Python test_*.py and
// *_test.py, Ruby _spec.rb, Java/Kotlin/C# *Test(s), and anything under a test,
// tests, __tests__, spec or testdata directory (which covers Rust's tests/).
func isTestFile(p string) bool {
	p = cleanPath(p)
	base := path.Base(p)
	lower := strings.ToLower(base)
	ext := path.Ext(lower)
	stem := strings.TrimSuffix(lower, ext)
	switch {
	case strings.HasSuffix(lower, "_test.go"),
		strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"),
		strings.HasSuffix(stem, "-test") && isScript(ext), strings.HasSuffix(stem, "-spec") && isScript(ext),
		ext == ".py" && (strings.HasPrefix(lower, "test_") || strings.HasSuffix(stem, "_test")),
		lower == "conftest.py",
		strings.HasSuffix(lower, "_spec.rb"), strings.HasSuffix(lower, "_test.rb"),
		(ext == ".java" || ext == ".kt" || ext == ".cs" || ext == ".scala") &&
			(strings.HasSuffix(base, "Test"+path.Ext(base)) || strings.HasSuffix(base, "Tests"+path.Ext(base)) || strings.HasSuffix(base, "Spec"+path.Ext(base))):
		return true
	}
	for _, d := range strings.Split(path.Dir(p), "/") {
		switch d {
		case "test", "tests", "__tests__", "spec", "specs", "testdata", "__snapshots__":
			return true
		}
	}
	return false
}

func isScript(ext string) bool {
	switch ext {
	case ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts":
		return true
	}
	return false
}

// isGolden reports whether p holds expected output a test compares against.
func isGolden(p string) bool {
	p = cleanPath(p)
	base := strings.ToLower(path.Base(p))
	switch path.Ext(base) {
	case ".golden", ".snap", ".snapshot", ".approved":
		return true
	}
	return strings.Contains(base, ".approved.") || strings.Contains(base, ".golden.") ||
		strings.Contains("/"+p+"/", "/__snapshots__/") || strings.Contains("/"+p+"/", "/golden/")
}

// Markers that switch a test off (or focus one, which switches off the
// others), a Go build constraint among them: added to a test file it leaves
// the file's tests out of the default build.
var skipRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bt\.Skip(?:f|Now)?\(|\b(?:it|describe|test|context|suite|bench)\.(?:skip|todo|only|skipIf|runIf)\b|` +
		`(?:^|[^\w.$])(?:xit|xdescribe|xtest|xcontext|fit|fdescribe|xspecify)\s*\(|` +
		`@pytest\.mark\.(?:skip|skipif|xfail)\b|\bpytest\.(?:skip|xfail)\(|@unittest\.(?:skip|skipIf|skipUnless|expectedFailure)\b|` +
		`\bself\.skipTest\(|#\[ignore\b|@(?:Disabled|Ignore)\b|^\s*(?:skip|pending)(?:\s*\(|\s+["']|\s*$)|` +
		`^//\s*(?:go:build|\+build)\s`)
})

// buildRe matches a Go build constraint.
var buildRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^//\s*(?:go:build|\+build)\s`) })

// Assertion lines, in the common frameworks.
var assertRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bassert(?:_eq|_ne|_matches)?!\s*\(|\bdebug_assert\w*!\s*\(|` +
		`\b(?:assert|require)\.\w+\(|\bassert\s*\(|^\s*assert\b|\bself\.assert\w+\(|\bassert[A-Z]\w*\s*\(|` +
		`(?:^|[^\w.])expect\s*\(|\b(?:t|tb|b|f)\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\(|\b(?:Expect|Ω|Assert)\(|\bshould\.\w|\.should\b|\bassert_\w+\b`)
})

// isSkip reports whether a line adds a skip, focus or todo marker. A cheap
// keyword check spares the regexp most lines.
func isSkip(text string) bool {
	lower := strings.ToLower(text)
	return containsAny(lower, "skip", "todo", "only", "xit", "xdesc", "xtest", "xcontext", "xspec", "fit", "fdesc",
		"xfail", "ignore", "disabled", "pending", "runif", "expectedfailure", "build") && skipRe().MatchString(text)
}

// isAssert reports whether a line holds an assertion.
func isAssert(text string) bool {
	lower := strings.ToLower(text)
	return containsAny(lower, "assert", "require.", "expect", "should", ".error", ".fatal", ".fail", "Ω") && assertRe().MatchString(text)
}

// containsAny reports whether s contains any of subs.
func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// tamper finds the test-tampering facts of the diff.
func tamper(files []*fileDiff, facts *evidence.DiffFacts) {
	var tests []*fileDiff
	for _, f := range files {
		p := f.Path()
		test := f.forceTest || isTestFile(p) || (f.Old != "" && isTestFile(f.Old))
		if test {
			facts.TestFilesChanged = append(facts.TestFilesChanged, p)
			tests = append(tests, f)
		}
		switch {
		case test && f.Deleted:
			facts.TestFilesDeleted = append(facts.TestFilesDeleted, p)
			add(facts, TamperTestDeleted, evidence.SeverityError, p, 0, "test file deleted")
			continue // its assertions and skips go with it
		case isGolden(p) && !f.Added:
			add(facts, TamperGoldenModified, evidence.SeverityWarning, p, firstLine(f), "expected-output (golden) file changed")
		case test && !f.Added:
			add(facts, TamperTestModified, evidence.SeverityWarning, p, firstLine(f), "existing test file edited")
		}
		if !test && path.Ext(p) != ".rs" { // Rust keeps unit tests beside the code
			continue
		}
		for _, l := range netLines(f, isSkip, '+') {
			if f.Added && buildRe().MatchString(l.Text) {
				continue // a new test file's constraint leaves out no test there was
			}
			facts.SkipsAdded++
			add(facts, TamperSkipAdded, evidence.SeverityError, p, l.N, "skip marker added: "+excerpt(l.Text))
		}
		for _, l := range netLines(f, isAssert, '-') {
			facts.AssertsRemoved++
			add(facts, TamperAssertRemoved, evidence.SeverityError, p, l.N, "assertion removed: "+excerpt(l.Text))
		}
	}
	facts.TestsRemoved = testsRemoved(tests)
}

// testDeclRe matches the line that declares a test: a Go test, benchmark,
// fuzz test or example, a Python test function, a JS/TS it() or test().
var testDeclRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*func\s+((?:Test|Benchmark|Fuzz|Example)\w*)\s*\(|` +
		`^\s*(?:async\s+)?def\s+(test\w*)\s*\(|(?:^|[^\w.])(?:it|test)\s*\(\s*['"\x60]([^'"\x60]+)`)
})

// testsRemoved names the tests whose declaration the test files lost, net of
// those declared again in any of them (a test rewritten in place or moved to
// another file is not removed).
func testsRemoved(files []*fileDiff) []string {
	name := func(text string) string {
		m := testDeclRe().FindStringSubmatch(text)
		if m == nil {
			return ""
		}
		for _, s := range m[1:] {
			if s != "" {
				return s
			}
		}
		return ""
	}
	added := map[string]bool{}
	var removed []string
	for _, f := range files {
		for _, l := range f.Lines {
			switch n := name(l.Text); {
			case n == "":
			case l.Op == '+':
				added[n] = true
			case l.Op == '-':
				removed = append(removed, n)
			}
		}
	}
	var out []string
	for _, n := range removed {
		if !added[n] && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// netLines returns the lines of side op that match re, minus as many as the
// other side has (a rewritten assertion is not a removed one), first ones first.
func netLines(f *fileDiff, match func(string) bool, op byte) []line {
	var mine []line
	other := 0
	for _, l := range f.Lines {
		if l.Op == ' ' || !match(l.Text) {
			continue
		}
		if l.Op == op {
			mine = append(mine, l)
		} else {
			other++
		}
	}
	if other >= len(mine) {
		return nil
	}
	return mine[:len(mine)-other]
}

func add(facts *evidence.DiffFacts, id, sev, file string, n int, msg string) {
	facts.Tamper = append(facts.Tamper, evidence.Finding{
		Kind: evidence.KindTamper, Tool: "diff", ID: id, File: file, Line: n,
		Message: msg, Severity: sev, Key: fmt.Sprintf("tamper:%s:%s", id, file),
	})
}

// firstLine is the first changed line of the file, for a finding's location.
func firstLine(f *fileDiff) int {
	for _, l := range f.Lines {
		if l.Op != ' ' {
			return l.N
		}
	}
	return 0
}

// excerpt is a line as a finding quotes it: trimmed, clipped, and withheld when
// it holds a secret.
func excerpt(text string) string {
	if hasSecret(text) {
		return "(line withheld: it holds a secret)"
	}
	return textcut.Bytes(strings.TrimSpace(text), 80)
}
