package agent

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNarrate(t *testing.T) {
	t.Parallel()
	fixed := []string{
		"agent: The test expects a sum; I will fix Add.",
		"tool %s: sed -i 's/return a - b/return a + b/' calc.go && echo fixed",
		"agent: Fixed calc.go: Add now adds.",
	}
	with := func(tool string) []string {
		out := slices.Clone(fixed)
		out[1] = strings.Replace(out[1], "%s", tool, 1)
		return out
	}
	tests := []struct {
		format, file string
		want         []string
	}{
		{FormatClaudeStream, "real/claude-2.1.197-success.stdout.jsonl", with("Bash")},
		{FormatCodex, "real/codex-0.169.0-success.stdout.jsonl", []string{
			"agent: The test expects a sum; I will fix Add.",
			`tool shell: /bin/bash -lc "sed -i 's/return a - b/return a + b/' calc.go && echo fixed"`,
			"agent: Fixed calc.go: Add now adds.",
		}},
		{FormatGeminiStream, "real/gemini-0.61.0-success.stdout.jsonl", with("run_shell_command")},
		{FormatOpencode, "real/opencode-1.18.33-success.stdout.jsonl", with("bash")},
		{FormatCopilot, "real/copilot-1.0.102-success.stdout.jsonl", []string{
			"agent: I will fix it.",
			"tool bash: sed -i 's/return a - b/return a + b/' calc.go && echo edited",
			"agent: Fixed calc.go: Add now adds.",
		}},
		{FormatCursorStream, "cursor-stream-json-1.jsonl", []string{"agent: OK"}},
		{FormatGoose, "written/goose-stream.jsonl", []string{"agent: All tests pass now."}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			t.Parallel()
			got := narrateFile(t, tt.format, filepath.Join("testdata", tt.file))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("narrated %s (-want +got):\n%s", tt.file, diff)
			}
		})
	}
}

func TestNarrateLines(t *testing.T) {
	t.Parallel()
	n := newNarrator(FormatClaudeStream)
	long := strings.Repeat("word ", 100)
	got := n.Line([]byte(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"two\n\nlines"},{"type":"tool_use","name":"Read","input":{"file_path":"a.go"}},{"type":"tool_use","name":"X","input":{"n":1}},{"type":"text","text":"` + long + `"}]}}`))
	got = append(got, n.Line([]byte("not json: kept"))...)
	got = append(got, n.Line([]byte(`{"type":"result","result":"left out"}`))...)
	want := []string{"agent: two lines", "tool Read: a.go", `tool X: {"n":1}`, "agent: " + strings.TrimSpace(long)[:narrateWidth-1] + "…", "not json: kept"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if newNarrator(FormatText) != nil || newNarrator(FormatAider) != nil {
		t.Error("a text format is narrated; its output should be echoed as it is")
	}
}

func narrateFile(t *testing.T, format, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := newNarrator(format)
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, n.Line(sc.Bytes())...)
	}
	return append(out, n.Flush()...)
}
