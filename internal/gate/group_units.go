package gate

import (
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// unitNoun is what a failure's unit is called: a Go package, a test file, …
func unitNoun(f evidence.Finding) string {
	switch {
	case f.Tool == "go" || (f.Tool == "junit" && strings.Contains(f.Unit, "/") && !strings.Contains(f.Unit, ".")):
		return "package"
	case f.Tool == "cargo":
		return "target"
	case f.Tool == "junit" && !strings.Contains(f.Unit, "/"):
		return "class"
	}
	return "file"
}

// unitLabel names a failure's unit as its id does ("calc" for a Go test whose
// id is calc.TestAdd, the file for the others); "" when it has none.
func unitLabel(f evidence.Finding) string {
	if f.Test != "" && strings.HasSuffix(f.ID, f.Test) && len(f.ID) > len(f.Test) {
		return strings.TrimRight(strings.TrimSuffix(f.ID, f.Test), ". ›:")
	}
	return f.Unit
}

// testName is a failure's test name inside its unit.
func testName(f evidence.Finding) string {
	if f.Test != "" {
		return f.Test
	}
	return f.ID
}

// splitTest cuts a test name into its parent and the rest: a Go subtest
// (TestRead/quoted), a describe block (auth › login), a pytest class or
// parameter (TestAuth::test_login, test_x[a]), a Rust module (tests::adds).
func splitTest(name string) (string, string) {
	best, sep := -1, ""
	for _, s := range []string{"/", " › ", "::", "["} {
		i := strings.Index(name, s)
		if s == " › " {
			i = strings.LastIndex(name, s) // a test's describe blocks are its parent
		}
		if i > 0 && (best < 0 || i < best) {
			best, sep = i, s
		}
	}
	if best < 0 {
		return name, ""
	}
	rest := name[best+len(sep):]
	if sep == "[" {
		rest = strings.TrimSuffix(rest, "]")
	}
	return name[:best], rest
}

// testCount says how many failing tests there are and where, in words:
// "29 failing tests in 3 packages", "1 failing test (crashed)".
func testCount(fs []evidence.Finding) string {
	units := map[string]bool{}
	crashed, timedOut := 0, 0
	noun := ""
	for _, f := range fs {
		units[unitLabel(f)] = true
		if noun == "" {
			noun = unitNoun(f)
		}
		switch f.Kind {
		case evidence.KindCrash:
			crashed++
		case evidence.KindTimeout:
			timedOut++
		}
	}
	s := countNoun(len(fs), "failing test")
	var how []string
	if crashed > 0 {
		how = append(how, fmt.Sprintf("%d crashed", crashed))
	}
	if timedOut > 0 {
		how = append(how, fmt.Sprintf("%d timed out", timedOut))
	}
	if len(how) > 0 {
		s += " (" + strings.Join(how, ", ") + ")"
	}
	if len(units) > 1 {
		s += " in " + countNoun(len(units), noun)
	}
	return s
}
