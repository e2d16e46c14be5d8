package gate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// Options tell [Parse] how to read one gate's output.
type Options struct {
	Format  string // "auto" (or "") to detect, else a name from [Formats]
	WorkDir string // absolute paths under it are made relative; its go.mod names the Go module
	Tool    string // overrides the tool name recorded in findings
	Module  string // Go module path; read from WorkDir/go.mod when empty
}

// Report is what one gate's output says, before judging.
type Report struct {
	Format   string              // the parser used
	Findings []evidence.Finding  // failures found, flaky ones marked
	Tests    evidence.TestCounts // test cases counted, when the format has them
	Tail     string              // the last ~20 non-empty lines, ANSI stripped
	Parsed   bool                // a structured report or recognizable result lines were found
	Dropped  int                 // findings left out past MaxFindings
	// Problems say what in the output the parser could not read (a count and
	// the first such line, a decoding error), for people to see; they are not
	// failures of the code under test.
	Problems []string
	// Unreadable is set when the output is not blank and nothing in it could be
	// read in its structured format (JSON, XML): the exit code alone is left.
	Unreadable bool
}

type parseFunc func(br *bufio.Reader, c *collector) error

type format struct {
	name  string
	tool  string
	parse parseFunc
}

// formats lists every parser; the order is the one [Formats] reports.
func formats() []format {
	return []format{
		{"gotest-json", "go", parseGoTestJSON},
		{"gotest", "go", parseGoText},
		{"gotestsum", "go", parseGotestsum},
		{"govet-json", "go vet", parseGoVetJSON},
		{"golangci-json", "golangci-lint", parseGolangci},
		{"junit", "junit", parseJUnit},
		{"jest-json", "jest", parseJestJSON},
		{"vitest-json", "vitest", parseJestJSON},
		{"mocha-json", "mocha", parseMochaJSON},
		{"js-text", "", parseJSText},
		{"spec-text", "", parseSpecText},
		{"tap", "tap", parseTAP},
		{"cargo", "cargo", parseCargo},
		{"cargo-json", "rustc", parseCargoJSON},
		{"eslint-json", "eslint", parseESLint},
		{"ruff-json", "ruff", parseRuff},
		{"tsc", "tsc", parseTSC},
		{"mypy", "mypy", parseMypy},
		{"mypy-json", "mypy", parseMypyJSON},
		{"python", "python", parsePython},
		{"sarif", "sarif", parseSARIF},
		{"generic", "", parseGeneric},
	}
}

// aliases maps other spellings to format names.
func alias(name string) string {
	switch name {
	case "", "auto":
		return "auto"
	case "go-test-json", "gotestjson", "go-json", "test2json", "gotestsum-json", "go-build-json":
		return "gotest-json"
	case "go", "go-test", "gotest-text", "go-build", "go-vet", "govet":
		return "gotest"
	case "golangci", "golangci-lint", "golangci-lint-json":
		return "golangci-json"
	case "go-vet-json", "vet-json":
		return "govet-json"
	case "junit-xml", "xunit", "xml":
		return "junit"
	case "jest", "vitest":
		return name + "-json"
	case "jest-text", "vitest-text":
		return "js-text"
	case "node-spec", "mocha-spec", "spec":
		return "spec-text"
	case "mocha":
		return "mocha-json"
	case "eslint":
		return "eslint-json"
	case "ruff":
		return "ruff-json"
	case "cargo-test", "rust":
		return "cargo"
	case "pytest", "unittest", "pytest-text":
		return "python"
	case "node-test", "prove":
		return "tap"
	case "text", "plain", "errorformat":
		return "generic"
	}
	return name
}

// Formats lists the names [Parse] accepts besides "auto".
func Formats() []string {
	var out []string
	for _, f := range formats() {
		out = append(out, f.name)
	}
	return out
}

// FormatName returns the format that name (a name from [Formats], "auto", or
// another spelling of one, in any case) selects; ok is false for a name
// [Parse] does not know.
func FormatName(name string) (string, bool) {
	name = alias(strings.ToLower(strings.TrimSpace(name)))
	if name == "auto" {
		return name, true
	}
	return name, slices.ContainsFunc(formats(), func(f format) bool { return f.name == name })
}

// Parse reads a gate's whole output from r and returns what it reports. It streams:
// memory stays bounded whatever the size of r. An error means r could not be read
// or the format is unknown; output that does not match its format is not an error
// (the report then has Parsed false and the tail).
func Parse(r io.Reader, o Options) (Report, error) {
	name, known := FormatName(o.Format)
	if !known {
		return Report{}, fmt.Errorf("parse gate output: unknown format %q (use auto or one of %s)", o.Format, strings.Join(Formats(), ", "))
	}
	tail := newTailWriter(16 << 10)
	src := &errReader{r: &crlfReader{r: r}} // a gate on Windows ends its lines with "\r\n"
	br := bufio.NewReaderSize(io.TeeReader(src, tail), 64<<10)
	if name == "auto" {
		name = detect(br)
	}
	i := slices.IndexFunc(formats(), func(f format) bool { return f.name == name })
	if i < 0 {
		return Report{}, fmt.Errorf("parse gate output: format %q has no parser", name)
	}
	f := formats()[i]
	c := newCollector(o, f.tool)
	perr := f.parse(br, c) // malformed output is not an error: it is judged from the tail, and named
	_, _ = io.Copy(io.Discard, br)
	var problems []string
	if c.unread > 0 {
		problems = append(problems, fmt.Sprintf("%s could not be parsed as %s: %q", plural(c.unread, "line"), name, c.sample))
	}
	unreadable := false
	if !c.parsed && len(c.findings) == 0 && name != "generic" {
		// A structured format that did not decode: fall back to the lines of the tail.
		text := StripANSI(string(tail.buf[max(0, len(tail.buf)-tail.size):]))
		g := newCollector(o, f.tool)
		_ = parseGeneric(bufio.NewReader(strings.NewReader(text)), g)
		c.findings = g.findings
		if unreadable = structured(name) && strings.TrimSpace(text) != ""; unreadable {
			why := ""
			if perr != nil && src.err == nil && !errors.Is(perr, io.EOF) {
				why = " (" + perr.Error() + ")"
			}
			problems = []string{fmt.Sprintf("nothing in the output could be read as %s%s; it was read as plain text", name, why)}
			perr = nil
		}
	}
	if perr != nil && src.err == nil {
		problems = append(problems, fmt.Sprintf("the output is not valid %s: %v", name, perr))
	}
	tailText := tail.lines(20)
	if c.text != nil {
		tailText = c.text.lines(20)
	}
	rep := Report{
		Format: name, Findings: c.findings, Tests: c.tests,
		Tail: tailText, Parsed: c.parsed, Dropped: c.dropped,
		Problems: problems, Unreadable: unreadable,
	}
	if src.err != nil {
		return rep, fmt.Errorf("read gate output: %w", src.err)
	}
	return rep, nil
}

// structured reports whether a format is a document or stream (JSON, XML) that
// either decodes or does not, as opposed to text read line by line.
func structured(name string) bool {
	return strings.HasSuffix(name, "-json") || name == "junit" || name == "sarif"
}

// errReader records the first error of the underlying reader other than EOF.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// plural is "1 line", "3 lines".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
