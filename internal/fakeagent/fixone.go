package fakeagent

import (
	"fmt"
	"os"
	"strings"
)

// Markers of the fixone convention: CODE // BUG: OLD // FIX: NEW.
const (
	bugMarker = "// BUG:"
	fixMarker = "// FIX:"
)

// fixOne fixes the first marked line of the file at path and says what it did.
func fixOne(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	lines := strings.SplitAfter(string(b), "\n")
	for i, line := range lines {
		if !strings.Contains(line, bugMarker) {
			continue
		}
		fixed, err := fixLine(line)
		if err != nil {
			return "", fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		lines[i] = fixed
		if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
			return "", err
		}
		return fmt.Sprintf("fixone: fixed %s:%d", path, i+1), nil
	}
	return "fixone: nothing to fix", nil
}

// fixLine applies the convention to one line (which may end in a newline).
func fixLine(line string) (string, error) {
	body, eol := strings.CutSuffix(line, "\n")
	code, marks, _ := strings.Cut(body, bugMarker)
	old, repl, ok := strings.Cut(marks, fixMarker)
	old, repl = strings.TrimSpace(old), strings.TrimSpace(repl)
	if !ok || old == "" {
		return "", fmt.Errorf("want a line of the form: CODE %s OLD %s NEW", bugMarker, fixMarker)
	}
	if !strings.Contains(code, old) {
		return "", fmt.Errorf("the code before %s does not contain %q", bugMarker, old)
	}
	out := strings.TrimRight(strings.Replace(code, old, repl, 1), " \t")
	if eol {
		out += "\n"
	}
	return out, nil
}
