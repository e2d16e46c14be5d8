package gate

import (
	"bufio"
	"encoding/json"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/evidence"
)

var (
	stackFrameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(at |❯ |→ )`) })
	frameLocRE   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:file://)?((?:/|[A-Za-z]:\\|\.{0,2}/?)[^\s():'"]*\.[A-Za-z]{1,5}):(\d+)(?::(\d+))?`)
	})
	jestHeaderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^expect\(.*\)\.\w+\(.*\)`) })
)

// jsMessage keeps the first meaningful lines of a JS failure: no stack frames, no
// jest matcher header, no "Error: " prefix.
func jsMessage(s string) string {
	var out []string
	for _, l := range strings.Split(StripANSI(s), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || stackFrameRE().MatchString(l) || jestHeaderRE().MatchString(t) {
			continue
		}
		t = strings.TrimPrefix(t, "Error: ")
		t = strings.TrimPrefix(t, "AssertionError: ")
		if jestHeaderRE().MatchString(t) {
			continue
		}
		out = append(out, t)
		if len(out) == 4 {
			break
		}
	}
	return strings.Join(out, "\n")
}

// jsLocation is the first stack location inside the repository: in the
// stack's "at …" lines when it has them (a message may quote a URL, as
// "john:doe@example.com:1080/path" does, that reads as a location).
func jsLocation(c *collector, s string) (string, int, int) {
	s = StripANSI(s)
	if i := stackRE().FindStringIndex(s); i != nil {
		if p, ln, col := jsFrame(c, s[i[0]:]); p != "" {
			return p, ln, col
		}
	}
	return jsFrame(c, s)
}

var stackRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s+at `) })

func jsFrame(c *collector, s string) (string, int, int) {
	for _, m := range frameLocRE().FindAllStringSubmatch(s, 50) {
		if c.inRepo(m[1]) {
			ln, _ := strconv.Atoi(m[2])
			col, _ := strconv.Atoi(m[3])
			return m[1], ln, col
		}
	}
	return "", 0, 0
}

// parseJestJSON reads jest --json and vitest --reporter=json: a suite that failed
// to load (empty assertionResults, a message) is a build finding; retried tests
// that passed are flaky.
func parseJestJSON(br *bufio.Reader, c *collector) error {
	var doc struct {
		TestResults []struct {
			Name             string
			Status           string
			Message          string
			AssertionResults []struct {
				AncestorTitles  []string
				Title, FullName string
				Status          string
				FailureMessages []string
				Location        *struct{ Line, Column int }
				Invocations     int
			}
		}
	}
	if err := json.NewDecoder(io.LimitReader(skipToJSON(br), MaxDocument)).Decode(&doc); err != nil {
		return err
	}
	c.parsed = true
	for _, file := range doc.TestResults {
		rel := c.rel(file.Name)
		if len(file.AssertionResults) == 0 && file.Status == "failed" {
			f := evidence.Finding{Kind: evidence.KindBuild, ID: rel, File: rel, Message: suiteError(file.Message)}
			if p, ln, col := jsLocation(c, file.Message); p != "" && c.rel(p) == rel {
				f.Line, f.Col = ln, col
			}
			c.add(f)
			continue
		}
		for _, a := range file.AssertionResults {
			switch a.Status {
			case "passed":
				c.tests.Passed++
				continue
			case "failed":
			default:
				c.tests.Skipped++
				continue
			}
			c.tests.Failed++
			name := a.FullName
			if name == "" {
				name = strings.Join(append(append([]string(nil), a.AncestorTitles...), a.Title), " ")
			}
			msg := strings.Join(a.FailureMessages, "\n")
			f := evidence.Finding{Kind: evidence.KindTest, ID: rel + " › " + name, Message: jsMessage(msg), Unit: rel, Test: name}
			if a.Title != "" || len(a.AncestorTitles) > 0 {
				// A test with no title of its own keeps its empty title: its
				// name for -t is its describe blocks' and a space ("plain ").
				f.Test = strings.Join(append(append([]string(nil), a.AncestorTitles...), a.Title), " › ")
			}
			f.File, f.Line, f.Col = jsLocation(c, msg)
			if f.File == "" {
				f.File = rel
				if a.Location != nil {
					f.Line, f.Col = a.Location.Line, a.Location.Column
				}
			}
			if strings.Contains(msg, "Exceeded timeout") || strings.Contains(msg, "Test timed out") {
				f.Kind = evidence.KindTimeout
			}
			c.add(f)
		}
	}
	return nil
}

// suiteError picks the line that says why a test file failed to load.
func suiteError(msg string) string {
	msg = StripANSI(msg)
	for _, l := range strings.Split(msg, "\n") {
		t := strings.TrimSpace(l)
		for _, marker := range []string{"SyntaxError", "Parse failure", "Cannot find module", "ReferenceError", "TypeError", "Error:"} {
			if strings.Contains(t, marker) {
				return t
			}
		}
	}
	return jsMessage(msg)
}

// parseMochaJSON reads mocha --reporter json.
func parseMochaJSON(br *bufio.Reader, c *collector) error {
	type test struct {
		Title, FullTitle, File string
		Err                    struct{ Message, Stack, Code string }
	}
	var doc struct {
		Stats    struct{ Passes, Pending, Failures int }
		Failures []test
	}
	if err := json.NewDecoder(io.LimitReader(skipToJSON(br), MaxDocument)).Decode(&doc); err != nil {
		return err
	}
	c.parsed = true
	c.tests = evidence.TestCounts{Passed: doc.Stats.Passes, Skipped: doc.Stats.Pending, Failed: len(doc.Failures)}
	for _, t := range doc.Failures {
		rel := c.rel(t.File)
		f := evidence.Finding{Kind: evidence.KindTest, ID: strings.TrimSpace(rel + " › " + t.FullTitle), Message: jsMessage(t.Err.Message)}
		f.File, f.Line, f.Col = jsLocation(c, t.Err.Stack)
		if f.File == "" {
			f.File = rel
		}
		if t.Err.Code == "ERR_MOCHA_TIMEOUT" {
			f.Kind = evidence.KindTimeout
		}
		c.add(f)
	}
	return nil
}
