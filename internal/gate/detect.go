package gate

import (
	"bufio"
	"bytes"
	"regexp"
	"sync"
)

// detectBytes is how much of the output format detection looks at.
const detectBytes = 64 << 10

// Detection rules for Format "auto", applied to the first 64 KiB of output after
// a byte-order mark, ANSI codes and leading blank space are skipped:
//
//   - '<' and a <testsuite or <testcase element: junit.
//   - '{' or '[': JSON, told apart by the keys present: "Action" on the first line
//     (go test -json, go build -json, gotestsum --jsonfile) → gotest-json; a SARIF
//     "$schema" or "runs" → sarif; "Issues" → golangci-json; "numFailedTests" or
//     "testResults" → jest-json (vitest writes the same shape); "stats" with
//     "passes" → mocha-json; "reason" of cargo → cargo-json; "posn" → govet-json;
//     "filePath" → eslint-json; "code" with "filename" → ruff-json; "severity" with
//     "file" → mypy-json; "[]" → eslint-json.
//   - text, the first family with a marker line wins, in this order: golangci-lint
//     text (a first line file:l:c: message (linter)) → generic, gotestsum
//     (DONE N tests, === Failed, PASS pkg.Test (…), ✓/✖ package lines), go test
//     (=== RUN, --- FAIL:, ok/FAIL<tab>pkg, # pkg followed by file:line:col, panic:),
//     jest/vitest default reporters (FAIL file.js, "  ● a › b", " FAIL  file > a",
//     " RUN  vX"), node/mocha spec (✖ name (Nms), ℹ tests N, N passing (…)), TAP (TAP version, 1..N, ok N / not ok N), cargo (running N tests, test result:,
//     error[E…]), python (unittest "FAIL: t (m.C.t)", "t (m.C.t) ... ok", "Ran N tests";
//     pytest "=== FAILURES ===", "FAILED path::test"), tsc (file(l,c): error TS…), mypy (file.py:N: error:, Found N errors).
//   - anything else: generic.
func detect(br *bufio.Reader) string {
	head, _ := br.Peek(detectBytes)
	head = stripANSIBytes(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")))
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if len(trimmed) == 0 {
		return "generic"
	}
	switch trimmed[0] {
	case '<':
		if bytes.Contains(trimmed, []byte("<testsuite")) || bytes.Contains(trimmed, []byte("<testcase")) {
			return "junit"
		}
		return "generic"
	case '{', '[':
		if f := detectJSON(trimmed); f != "" {
			return f
		}
	}
	return detectText(head)
}

func detectJSON(b []byte) string {
	first := b
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		first = b[:i]
	}
	has := func(s string) bool { return bytes.Contains(b, []byte(s)) }
	switch {
	case bytes.Contains(first, []byte(`"Action":`)):
		return "gotest-json"
	case has(`"$schema"`) && has("sarif"), has(`"runs"`) && has(`"version"`) && has(`"tool"`):
		return "sarif"
	case has(`"Issues"`):
		return "golangci-json"
	case has(`"numFailedTests"`), has(`"testResults"`):
		return "jest-json"
	case has(`"stats"`) && has(`"passes"`):
		return "mocha-json"
	case has(`"reason":"compiler-`), has(`"reason":"build-`), has(`"reason":"compiler-artifact"`):
		return "cargo-json"
	case has(`"posn"`):
		return "govet-json"
	case has(`"filePath"`):
		return "eslint-json"
	case has(`"code"`) && has(`"filename"`):
		return "ruff-json"
	case has(`"severity"`) && has(`"file"`) && has(`"line"`):
		return "mypy-json"
	case bytes.Equal(bytes.TrimSpace(b), []byte("[]")):
		return "eslint-json"
	}
	return ""
}

// textMarker names a text format by a regexp its head matches.
type textMarker struct {
	format string
	re     *regexp.Regexp
}

var textMarkers = sync.OnceValue(func() []textMarker {
	return []textMarker{
		{"gotestsum", regexp.MustCompile(`(?m)^(DONE (\d+ runs, )?\d+ tests|=== (Failed|Skipped|Errors)$|=== FAIL: \S+ |(PASS|FAIL|SKIP) \S+\.\S+ (\(re-run \d+\) )?\(\d|[✓✖∅]  \S+( \(\d|$))`)},
		{"generic", regexp.MustCompile(`(?m)\A(\S+:\d+:\d+: .* \([a-z][\w-]*\)\n)`)}, // golangci-lint text
		{"gotest", regexp.MustCompile(`(?m)^(=== RUN |\s*--- (FAIL|PASS|SKIP): |(ok|FAIL)\s+\S+\s+(\d|\[|\(cached)|\?\s+\S+\s+\[no test files\]|panic: |(vet: )?\S+\.go:\d+:\d+: )`)},
		{"js-text", regexp.MustCompile(`(?m)^(  ● |(FAIL|PASS) \S+\.[cm]?[jt]sx?$| FAIL  \S+|\s+Tests\s+\d+ (failed|passed)| RUN  v\d)`)},
		{"spec-text", regexp.MustCompile(`(?m)^(\s*✖ .+ \([\d.]+m?s\)|ℹ tests \d+|\s+\d+ passing \(|  \d+\) \S)`)},
		{"tap", regexp.MustCompile(`(?m)^(TAP version \d+|1\.\.\d+|(not )?ok \d+( |$)|\S+\.t \.\.|Result: (FAIL|PASS)$)`)},
		{"cargo", regexp.MustCompile(`(?m)^(running \d+ tests?$|test result: |error\[E\d+\]|test \S+ \.\.\. |\s+Running (unittests|tests/))`)},
		{"python", regexp.MustCompile(`(?m)^((FAIL|ERROR): \S+ \(\S+\)|\S+ \(\S+\) \.\.\. (ok|FAIL|ERROR)$|=+ (FAILURES|ERRORS|short test summary info) =+$|(FAILED|ERROR) \S+::|Ran \d+ tests? in )`)},
		{"tsc", regexp.MustCompile(`(?m)^(\S+\(\d+,\d+\): error TS\d+|\S+:\d+:\d+ - error TS\d+|error TS\d+: )`)},
		{"mypy", regexp.MustCompile(`(?m)^(\S+\.pyi?:\d+(:\d+)*: (error|note|warning): |Found \d+ errors? in \d+ files?|Success: no issues found)`)},
	}
})

func detectText(head []byte) string {
	for _, m := range textMarkers() {
		if m.re.Match(head) {
			return m.format
		}
	}
	return "generic"
}
