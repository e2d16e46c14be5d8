package fakeagent

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The solve convention: a line
//
//	CODE // BUG(TestName): OLD // FIX: NEW
//
// is fixed (as by fixone) when the prompt names TestName as failing; a line
// carrying "// SETBACK" is a break the agent made, removed when the prompt
// reports a build failure. The agent acts only on what its prompt says.
const (
	namedBugPrefix = "// BUG("
	setbackMarker  = "// SETBACK"
)

var (
	// A failing test as agentloop's feedback lists it ("2. TEST calc.TestAdd
	// (calc/calc_test.go:7): …"), as go test prints it ("--- FAIL: TestAdd"),
	// or named in a sentence of the prompt that says what fails or what to fix.
	failingItemRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\s*(?:\d+\.\s+)?(?:TEST|CRASH|TIMEOUT)\s+(?:[\w./-]+\.)?(Test\w+)`)
	})
	goFailRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`--- FAIL: (Test\w+)`) })
	namedLineRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)(?:fails there|fixes this one failure first|still fail(?:s|ing)?):\s*(.*)$`)
	})
	testNameRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:[\w./-]+\.)?(Test\w+)`) })
	buildBrokenRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`undefined: |\[build failed\]|(?m)^\s*(?:\d+\.\s+)?BUILD `)
	})
)

// failingNamed returns the tests the prompt names as failing, in the order it
// names them, each once.
func failingNamed(prompt string) []string {
	var out []string
	add := func(name string) {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	for _, m := range failingItemRE().FindAllStringSubmatch(prompt, -1) {
		add(m[1])
	}
	for _, m := range goFailRE().FindAllStringSubmatch(prompt, -1) {
		add(m[1])
	}
	for _, l := range namedLineRE().FindAllStringSubmatch(prompt, -1) {
		for _, m := range testNameRE().FindAllStringSubmatch(l[1], -1) {
			add(m[1])
		}
	}
	return out
}

// solve fixes, in the file at path, the marked bugs of the tests the prompt
// names as failing (at most limit, 0: all), after removing the agent's own
// SETBACK lines when the prompt reports a broken build. It says what it did.
func solve(path, prompt string, limit int) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	lines := strings.SplitAfter(string(b), "\n")
	var did []string
	if buildBrokenRE().MatchString(prompt) {
		kept := lines[:0]
		for _, l := range lines {
			if strings.Contains(l, setbackMarker) {
				did = append(did, "removed my broken line")
				continue
			}
			kept = append(kept, l)
		}
		lines = kept
	}
	fixed := 0
	for _, name := range failingNamed(prompt) {
		marker := namedBugPrefix + name + "):"
		for i, l := range lines {
			if limit > 0 && fixed == limit {
				break
			}
			if !strings.Contains(l, marker) {
				continue
			}
			out, err := fixLine(strings.Replace(l, marker, bugMarker, 1))
			if err != nil {
				return "", fmt.Errorf("%s:%d: %w", path, i+1, err)
			}
			lines[i] = out
			fixed++
			did = append(did, "fixed "+name)
		}
	}
	if len(did) == 0 {
		return "solve: nothing I know how to fix", nil
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		return "", err
	}
	return "solve: " + strings.Join(did, ", "), nil
}
