package prompt

import (
	"io/fs"
	"testing"
)

func TestHasTask(t *testing.T) {
	t.Parallel()
	build := Builtins()[0].Parts
	observe, _ := ReadBuiltin(build.Observe.File)
	files := map[string]string{"TASK.md": "Add a /health endpoint.", "empty.md": "  \n", "prompts/observe.md": string(observe), "prompts/act.md": "Implement the parser in parse.go."}
	read := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
	with := func(f func(*Parts)) Parts {
		p := build
		f(&p)
		return p
	}
	tests := []struct {
		name string
		p    Parts
		d    Data
		want bool
	}{
		{"built-in procedure, nothing else", build, Data{}, false},
		{"an empty context file", with(func(p *Parts) { p.Context = []string{"empty.md"} }), Data{}, false},
		{"a context file with the task", with(func(p *Parts) { p.Context = []string{"TASK.md"} }), Data{}, true},
		{"inline context text", with(func(p *Parts) { p.Context = []string{"add a health endpoint"} }), Data{}, true},
		{"a missing context file counts (compose reports it)", with(func(p *Parts) { p.Context = []string{"docs/spec.md"} }), Data{}, true},
		{"the baseline's failures", build, Data{Feedback: "tests failed: 1 test"}, true},
		{"human guidance", build, Data{Guidance: "use the v2 API"}, true},
		{"a task of the task graph", build, Data{Task: "Task api: add the endpoint"}, true},
		{"a copy of a built-in phase", with(func(p *Parts) { p.Observe = Part{File: "prompts/observe.md"} }), Data{}, false},
		{"a phase of the user's own", with(func(p *Parts) { p.Act = Part{File: "prompts/act.md"} }), Data{}, true},
		{"inline phase text", with(func(p *Parts) { p.Act = Part{Text: "Fix the flaky test in net_test.go."} }), Data{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := HasTask(tt.p, tt.d, read); got != tt.want {
				t.Errorf("HasTask = %v, want %v", got, tt.want)
			}
		})
	}
}
