package prompt

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/tokens"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func mapReader(files map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("open %s: %w", p, fs.ErrNotExist)
	}
}

var workspace = map[string]string{
	"AGENTS.md": "# Notes for agents\n\nBuild with `go build ./...`, test with `go test ./...`.\n",
	"TASK.md":   "Add a `--json` flag to `textkit count` that prints the counts as a JSON object.\n",
	"main.go":   "package main\n\nfunc main() {\n\t// ```not a fence```\n}\n",
	"prompts/observe.md": "## Observe ({{.Procedure}})\n\nIteration {{.Iteration}}{{if .MaxIterations}} of {{.MaxIterations}}{{end}}." +
		"{{if .Lessons}} Lessons so far: {{join .Lessons \"; \"}}.{{end}}\n",
	"prompts/act.md": "## Act\n\nWork in {{.WorkDir}}; logs are in {{.LogDir}}.\n",
}

func byName(t *testing.T, name string) Parts {
	t.Helper()
	for _, b := range Builtins() {
		if b.Name == name {
			return b.Parts
		}
	}
	t.Fatalf("no built-in %q", name)
	return Parts{}
}

func TestCompose(t *testing.T) {
	t.Parallel()
	custom := Parts{
		Preamble: Part{Text: "You are agent {{.Attempt}}."},
		Context:  []string{"Keep the public API stable.", "main.go"},
		Observe:  Part{File: "prompts/observe.md"},
		Orient:   Part{Text: "## Orient\n\nThink.\n"},
		Act:      Part{File: "prompts/act.md"},
	}
	tests := []struct {
		name  string
		parts func(t *testing.T) Parts
		data  Data
	}{
		{
			name: "build-first-iteration",
			parts: func(t *testing.T) Parts {
				p := byName(t, "build")
				p.Context = []string{"AGENTS.md", "TASK.md", "Implement it in cmd/count.go."}
				return p
			},
			data: Data{Procedure: "build", Iteration: 1, MaxIterations: 10, Attempt: 1, Gates: []string{"go test ./...", "go vet ./..."}},
		},
		{
			name:  "fix-tests-refine",
			parts: func(t *testing.T) Parts { return byName(t, "fix-tests") },
			data: Data{Procedure: "fix-tests", Iteration: 3, MaxIterations: 5, Attempt: 1, Strategy: "refine",
				Feedback: "1. [high] TestCount/empty (count_test.go:42): want 0, got 1\n2. still failing: TestCount/unicode"},
		},
		{
			name:  "custom-unlimited-simplify-guidance",
			parts: func(*testing.T) Parts { return custom },
			data: Data{Procedure: "mine", Iteration: 7, Attempt: 2, Strategy: "simplify", WorkDir: "/src/app", LogDir: ".agentloop/runs/mine/r1/iter-007",
				Lessons: []string{"changing the parser broke the lexer tests", "the bug is in count, not in split"},
				Focus:   "TestCount/unicode: want 3, got 9", Guidance: "Count runes, not bytes.", Feedback: "TestCount/unicode still fails."},
		},
		{
			name:  "expand-with-task",
			parts: func(*testing.T) Parts { return Parts{Act: Part{Text: "Do it."}} },
			data:  Data{Iteration: 2, MaxIterations: 3, Strategy: "expand", Expand: []string{"internal/count/count.go", "count.Runes"}, Task: "Count runes."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Compose(tt.parts(t), tt.data, mapReader(workspace))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "TestCompose", tt.name+".golden"), got)
		})
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

func TestComposeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		parts Parts
		want  []string // substrings of the error
	}{
		{"parse error names part and line", Parts{Observe: Part{Text: "line one\n{{.Iteration"}}, []string{"parse observe", "observe:2:"}},
		{"parse error in a file names the file", Parts{Decide: Part{File: "d.md"}}, []string{"parse decide", "decide (d.md):3:"}},
		{"unknown field", Parts{Act: Part{Text: "{{.Nope}}"}}, []string{"execute act", "act:1:", "Nope"}},
		{"missing phase file", Parts{Orient: Part{File: "prompts/none.md"}}, []string{"read orient (prompts/none.md)", "prompt.orient"}},
		{"missing built-in", Parts{Orient: Part{File: "builtin:nope/orient.md"}}, []string{"read built-in prompt", "agentloop list"}},
		{"missing context file", Parts{Context: []string{"TASK.md"}}, []string{"context file TASK.md does not exist"}},
		{"preamble", Parts{Preamble: Part{Text: "{{if}}"}}, []string{"parse preamble"}},
	}
	files := map[string]string{"d.md": "a\nb\n{{end}}\n"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Compose(tt.parts, Data{Iteration: 1}, mapReader(files))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestContextEntries(t *testing.T) {
	t.Parallel()
	files := map[string]string{"notes": "file named notes\n"}
	got, err := Compose(Parts{Context: []string{"notes", "refactor", "two words", "multi\nline", "builtin:build/act.md"}}, Data{Iteration: 1}, mapReader(files))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## notes\n\n```text\nfile named notes\n```", "\n\nrefactor\n", "\n\ntwo words\n", "\n\nmulti\nline\n", "## build/act.md\n\n```markdown\n## Act"} {
		if !strings.Contains(got, w) {
			t.Errorf("prompt lacks %q:\n%s", w, got)
		}
	}
}

func TestIterationLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		d    Data
		want string
	}{
		{Data{Iteration: 1, MaxIterations: 3}, "Iteration 1 of 3"},
		{Data{Iteration: 4}, "Iteration 4"},
		{Data{Iteration: 5, MaxIterations: 10, Attempt: 2}, "Iteration 5 of 10 (attempt 2)"},
	} {
		if got := tt.d.IterationLine(); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestBuiltinsComplete(t *testing.T) {
	t.Parallel()
	for _, b := range Builtins() {
		if b.Name == "" || b.Description == "" {
			t.Errorf("built-in without name or description: %+v", b)
		}
		for _, ph := range b.Parts.phases() {
			src, err := ReadBuiltin(ph.part.File)
			if err != nil || len(src) < 200 {
				t.Errorf("%s %s: %d bytes, %v", b.Name, ph.name, len(src), err)
			}
		}
	}
}

// BenchmarkComposeAndCount composes a prompt with 100 KB of context and counts
// its tokens, as every iteration (and every dry run) does.
func BenchmarkComposeAndCount(b *testing.B) {
	var src strings.Builder
	for i := 0; src.Len() < 100<<10; i++ {
		fmt.Fprintf(&src, "// Count%d returns the number of runes in s that satisfy keep.\nfunc Count%d(s string, keep func(rune) bool) (n int) {\n\tfor _, r := range s {\n\t\tif keep(r) {\n\t\t\tn++\n\t\t}\n\t}\n\treturn n\n}\n\n", i, i)
	}
	files := map[string]string{"big.go": src.String()}
	parts := Parts{Preamble: Part{File: "builtin:preamble.md"}, Context: []string{"big.go"},
		Observe: Part{File: "builtin:build/observe.md"}, Orient: Part{File: "builtin:build/orient.md"},
		Decide: Part{File: "builtin:build/decide.md"}, Act: Part{File: "builtin:build/act.md"}}
	d := Data{Iteration: 2, MaxIterations: 10, Strategy: "refine", Feedback: "TestX failed", Gates: []string{"go test ./..."}}
	read := mapReader(files)
	tokens.Count("warm up") // load the vocabulary outside the timing
	b.SetBytes(int64(src.Len()))
	b.ResetTimer()
	for b.Loop() {
		s, err := Compose(parts, d, read)
		if err != nil {
			b.Fatal(err)
		}
		if tokens.Count(s) == 0 {
			b.Fatal("no tokens")
		}
	}
}

// FuzzCompose runs arbitrary template text (prompt files come from users):
// Compose never panics and its output stays bounded.
func FuzzCompose(f *testing.F) {
	for _, s := range []string{"{{.Iteration}}", "{{range 100000000}}" + strings.Repeat("x", 4096) + "{{end}}",
		"{{join .Lessons \",\"}}", "{{if}}", "{{.Nope}}"} {
		f.Add(s, "ctx")
	}
	f.Fuzz(func(t *testing.T, tmpl, ctx string) {
		got, err := Compose(Parts{Context: []string{ctx}, Observe: Part{Text: tmpl}}, Data{Iteration: 1, Lessons: []string{"a"}}, mapReader(nil))
		if err == nil && len(got) > maxPart+len(ctx)+1024 {
			t.Fatalf("output of %d bytes", len(got))
		}
	})
}
