package tasks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentloop/agentloop/internal/budget"
)

func TestParseYAMLFile(t *testing.T) {
	t.Parallel()
	f, err := Load(filepath.Join("testdata", "tasks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	no := false
	want := &File{
		Path: "testdata/tasks.yaml", Parallel: 2, Budget: budget.Limits{MaxCostUSD: 25, MaxTokens: 5000000},
		Tasks: []Task{
			{ID: "schema", Title: "Add the users table", Prompt: "Add a users table with id, email and created_at, and its migration.\n",
				Files: []string{"db/**", "migrations/**"}, Limits: &Limits{Limits: budget.Limits{MaxIterations: 4, IterationTimeout: 20 * time.Minute}}},
			{ID: "api", Title: "REST endpoints for users", Procedure: "build", DependsOn: []string{"schema"},
				Gates: []Gate{{Name: "tests", Run: "go test ./api/...", Format: "gotest", Timeout: 5 * time.Minute},
					{Name: "lint", Run: "golangci-lint run ./api/...", Required: &no}}},
			{ID: "cli", Title: "CLI flags for users", DependsOn: []string{"schema"}},
			{ID: "e2e", Title: "End-to-end tests", DependsOn: []string{"api", "cli"}, Limits: &Limits{Limits: budget.Limits{MaxCostUSD: 2.5, MaxDuration: time.Hour}}},
		},
	}
	if diff := cmp.Diff(want, f, cmpopts.IgnoreFields(Task{}, "Pos")); diff != "" {
		t.Errorf("Load mismatch (-want +got):\n%s", diff)
	}
	if got := f.Tasks[1].Pos.String(); got != "testdata/tasks.yaml:11:5" {
		t.Errorf("task api at %s, want testdata/tasks.yaml:11:5", got)
	}
}

func TestParseYAMLErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     []string // substrings of the error, each required; "!x": x must not appear
	}{
		{"unknown top key", "tasks: []\nparalel: 2\n", []string{"f.yaml:2:1", `unknown key "paralel"`}},
		{"unknown task key", "tasks:\n  - id: a\n    titel: x\n", []string{"f.yaml:3:5", `unknown key "titel"`}},
		{"missing id", "tasks:\n  - title: x\n", []string{"f.yaml:2:5", "without an id"}},
		{"bad id", "tasks:\n  - {id: 'a b', title: x}\n", []string{"f.yaml:2:10", `id "a b"`}},
		{"duplicate id", "tasks:\n  - {id: a, title: x}\n  - {id: a, title: y}\n", []string{"f.yaml:3:5", `"a" is used twice (first at f.yaml:2:5)`}},
		{"unknown dep", "tasks:\n  - {id: build, title: x}\n  - {id: b, title: y, depends_on: [buidl]}\n", []string{"f.yaml:3:5", `unknown task "buidl"`, `did you mean "build"`}},
		{"unknown dep near itself", "tasks:\n  - {id: b, title: y, depends_on: [bb]}\n", []string{`unknown task "bb"`, `!did you mean`}},
		{"self dep", "tasks:\n  - {id: a, title: x, depends_on: [a]}\n", []string{"depends on itself"}},
		{"cycle", "tasks:\n  - {id: a, title: x, depends_on: [c]}\n  - {id: b, title: y, depends_on: [a]}\n  - {id: c, title: z, depends_on: [b]}\n",
			[]string{"f.yaml:2:5", "dependency cycle: a → c → b → a"}},
		{"prompt and procedure", "tasks:\n  - {id: a, prompt: x, procedure: y}\n", []string{"prompt or procedure, not both"}},
		{"nothing to do", "tasks:\n  - {id: a}\n", []string{"say what to do"}},
		{"wrong type", "parallel: many\ntasks: []\n", []string{"f.yaml:1:11", "whole number"}},
		{"negative", "parallel: -1\ntasks: []\n", []string{"out of range"}},
		{"bad duration", "tasks:\n  - {id: a, title: x, limits: {iteration_timeout: soon}}\n", []string{"duration"}},
		{"gate without run", "tasks:\n  - {id: a, title: x, gates: [{name: t}]}\n", []string{"no run: command"}},
		{"gate format typo", "tasks:\n  - {id: a, title: x, gates: [{run: go test -json, format: gotest-jsn}]}\n",
			[]string{"f.yaml:2:60", `unknown gate format "gotest-jsn"; did you mean "gotest-json"?`}},
		{"gate format unknown", "tasks:\n  - {id: a, title: x, gates: [{run: make, format: xyzzy}]}\n", []string{`unknown gate format "xyzzy"; use one of auto, gotest-json`}},
		{"dup key", "tasks: []\ntasks: []\n", []string{"given twice"}},
		{"no tasks", "parallel: 2\n", []string{"no tasks: list"}},
		{"empty list", "tasks: []\n", []string{"f.yaml:1:8", "no tasks: the tasks: list is empty"}},
		{"empty", "", []string{"empty task file"}},
		{"not a mapping", "- a\n", []string{"f.yaml:1:1", "a mapping"}},
		{"syntax", "tasks:\n  - {id: a\n  - x: [\n", []string{"f.yaml:1: did not find expected"}},
		{"tab", "tasks:\n\t- a\n", []string{"f.yaml:2: found character that cannot start any token"}},
		{"several at once", "tasks:\n  - {id: a, x: 1, y: 2}\n", []string{`"x"`, `"y"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseYAML("f.yaml", []byte(tt.in))
			if err == nil {
				t.Fatalf("ParseYAML(%q) succeeded, want an error", tt.in)
			}
			for _, w := range tt.want {
				if not, ok := strings.CutPrefix(w, "!"); ok {
					if strings.Contains(err.Error(), not) {
						t.Errorf("error %q has %q", err, not)
					}
				} else if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestParseMarkdown(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "plan.md"))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := ParseMarkdown("plan.md", data)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID, Title string
		Line      int
		Done      bool
		Deps      []string
		Notes     []string
	}
	var got []row
	for _, t := range ts {
		got = append(got, row{t.ID, t.Title, t.Pos.Line, t.Done, t.DependsOn, t.Notes})
	}
	want := []row{
		{"schema", "Add the users table", 5, false, nil, []string{"columns: id, email, created_at", "a nested checkbox is a note"}},
		{"set-up-ci", "Set up CI", 8, true, nil, nil},
		{"rest-endpoints-for-users", "REST endpoints for users", 9, false, []string{"schema"}, []string{"indented text is a note too"}},
		{"cli", "CLI flags", 11, false, []string{"schema"}, nil},
		{"end-to-end-tests", "End-to-end tests", 17, false, []string{"rest-endpoints-for-users", "cli"}, nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseMarkdown mismatch (-want +got):\n%s", diff)
	}
	if got, want := ts[0].Text(), "Add the users table\n- columns: id, email, created_at\n- a nested checkbox is a note"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
}

func TestParseMarkdownErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"no items", "# Plan\n\n- plain\n", "no checklist items"},
		{"unknown after", "- [ ] A\n- [ ] B (after: c)\n", `plan.md:2: task b depends on unknown task "c"`},
		{"cycle", "- [ ] A (after: b)\n- [ ] B (after: a)\n", "dependency cycle: a → b → a"},
		{"bad id", "- [ ] A (id: a/b)\n", `plan.md:1: id "a/b"`},
		{"duplicate id", "- [ ] A (id: x)\n- [ ] B (id: x)\n", "used twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseMarkdown("plan.md", []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseMarkdown error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestSlugsAreUnique(t *testing.T) {
	t.Parallel()
	ts, err := ParseMarkdown("p.md", []byte("- [ ] Fix it\n- [ ] Fix it!\n- [ ] ???\n"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, t := range ts {
		ids = append(ids, t.ID)
	}
	if diff := cmp.Diff([]string{"fix-it", "fix-it-2", "task"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

func TestTickMarkdown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.md")
	in := "# Plan\r\n- [ ] one\r\n  - [ ] note\r\n- [x] two\r\n- [ ] three"
	if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, line := range []int{5, 2, 4} { // last line without newline, CRLF, already ticked
		if err := TickMarkdown(path, line); err != nil {
			t.Fatalf("TickMarkdown(%d): %v", line, err)
		}
	}
	got, _ := os.ReadFile(path)
	want := "# Plan\r\n- [x] one\r\n  - [ ] note\r\n- [x] two\r\n- [x] three"
	if string(got) != want {
		t.Errorf("plan after ticks:\n%q\nwant\n%q", got, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", st.Mode().Perm())
	}
	for _, line := range []int{0, 1, 99} {
		if err := TickMarkdown(path, line); err == nil {
			t.Errorf("TickMarkdown(%d) succeeded, want an error", line)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
}
