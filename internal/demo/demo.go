package demo

import (
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

//go:embed sample
var sample embed.FS

// Setup writes the sample project into dir.
func Setup(dir string) error {
	return fs.WalkDir(sample, "sample", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := sample.ReadFile(path)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(strings.TrimPrefix(path, "sample/"), ".txt")
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("write the demo project: %w", err)
		}
		return nil
	})
}

// fix is what the scripted agent knows how to repair.
type fix struct {
	test, why, old, new string
}

// fixes are in the order a careful agent reading textkit.go top to bottom would
// meet the bugs.
var fixes = []fix{
	{"TestWordCount", "WordCount splits on single spaces; strings.Fields splits on any run of white space",
		`return len(strings.Split(s, " "))`, `return len(strings.Fields(s))`},
	{"TestReverse", "Reverse swaps bytes, which breaks multi-byte characters; swap runes instead",
		`b := []byte(s)`, `b := []rune(s)`},
	{"TestTitle", "Title upper-cases whole words; only the first letter should change",
		`words[i] = strings.ToUpper(w)`, `words[i] = strings.ToUpper(w[:1]) + w[1:]`},
}

// Agent is the scripted agent: it reads the prompt, picks the first failing test
// the feedback names (or, with no feedback yet, the first bug it finds), fixes
// that one bug in dir and says what it did, as a real agent would.
func Agent(prompt, dir string, out io.Writer) error {
	path := filepath.Join(dir, "textkit.go")
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	code := string(src)
	var todo []fix
	for _, f := range fixes {
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
