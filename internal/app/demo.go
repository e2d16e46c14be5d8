// The built-in demonstration: a small Go project with failing tests and a
// scripted agent that, like a real one, reads the feedback in its prompt and
// fixes one failure per iteration. `agentloop demo` runs the real loop on them
// with the real `go test` as the gate.

package app

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/gitx"
)

//go:embed demosample
var demoSample embed.FS

// PrepareDemo makes dir the demo's project: the demoSample, its agentloop.yaml (the
// agent: the program self as demo-agent; the gate: goBin's go test) and, with
// git (on PATH), a repository with the sample as its first commit, so that the
// run keeps checkpoints. Without git, or when the repository cannot be made
// (warnf says why), the demo runs all the same.
func PrepareDemo(ctx context.Context, dir, self, goBin string, git bool, warnf func(format string, args ...any)) error {
	if err := setupDemo(dir); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "agentloop.yaml"), []byte(demoConfig(self, goBin)), 0o644); err != nil {
		return fmt.Errorf("write the demo configuration: %w", err)
	}
	if git {
		if err := gitx.Init(ctx, dir, "textkit with failing tests"); err != nil {
			warnf("the demo runs without git checkpoints: %v", err)
		}
	}
	return nil
}

// demoConfig is the demo project's agentloop.yaml.
func demoConfig(self, goBin string) string {
	return `# agentloop demo: fix textkit's failing tests.
default: demo
procedures:
  demo:
    description: Fix the failing tests of the textkit sample project without editing the tests
    prompt:
      context: [TASK.md]
      observe: builtin:fix-tests/observe.md
      orient: builtin:fix-tests/orient.md
      decide: builtin:fix-tests/decide.md
      act: builtin:fix-tests/act.md
    agent:
      cmd: [` + strconv.Quote(self) + `, demo-agent]
      prompt_via: stdin
    gates:
      - name: tests
        run: [` + strconv.Quote(goBin) + `, test, -json, ./...]
        format: gotest-json
        timeout: 5m
        env: {GOTOOLCHAIN: local, GOFLAGS: -mod=mod}
    limits:
      max_iterations: 6
      failure_threshold: 3
      iteration_timeout: 2m
`
}

// setupDemo writes the sample project into dir.
func setupDemo(dir string) error {
	return fs.WalkDir(demoSample, "demosample", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := demoSample.ReadFile(path)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(strings.TrimPrefix(path, "demosample/"), ".txt")
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("write the demo project: %w", err)
		}
		return nil
	})
}

// demoFix is what the scripted agent knows how to repair.
type demoFix struct {
	test, why, old, new string
}

// demoFixes are in the order a careful agent reading textkit.go top to bottom would
// meet the bugs.
var demoFixes = []demoFix{
	{"TestWordCount", "WordCount splits on single spaces; strings.Fields splits on any run of white space",
		`return len(strings.Split(s, " "))`, `return len(strings.Fields(s))`},
	{"TestReverse", "Reverse swaps bytes, which breaks multi-byte characters; swap runes instead",
		`b := []byte(s)`, `b := []rune(s)`},
	{"TestTitle", "Title upper-cases whole words; only the first letter should change",
		`words[i] = strings.ToUpper(w)`, `words[i] = strings.ToUpper(w[:1]) + w[1:]`},
}

// DemoAgent is the scripted agent: it reads the prompt, picks the first failing test
// the feedback names (or, with no feedback yet, the first bug it finds), fixes
// that one bug in dir and says what it did, as a real agent would.
func DemoAgent(prompt, dir string, out io.Writer) error {
	path := filepath.Join(dir, "textkit.go")
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	code := string(src)
	var todo []demoFix
	for _, f := range demoFixes {
		if strings.Contains(code, f.old) {
			todo = append(todo, f)
		}
	}
	if len(todo) == 0 {
		fmt.Fprintln(out, "Everything I know how to fix is fixed; nothing to do.")
		return nil
	}
	pick := todo[0]
	first := -1
	for _, f := range todo {
		if i := strings.Index(prompt, f.test); i >= 0 && (first < 0 || i < first) {
			pick, first = f, i
		}
	}
	if first >= 0 {
		fmt.Fprintf(out, "The feedback says %s fails. Looking at it.\n", pick.test)
	} else {
		fmt.Fprintln(out, "No feedback yet: reading textkit.go and its tests from the top.")
	}
	fmt.Fprintf(out, "Fix: %s.\n", pick.why)
	code = strings.Replace(code, pick.old, pick.new, 1)
	if err := os.WriteFile(path, []byte(code), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fmt.Fprintf(out, "Edited textkit.go: %s → %s\n", pick.old, pick.new)
	return nil
}
