package graph

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/tasks"
)

// graphIn keeps a graph's state in repo's state folder, its task file named
// relative to repo, as a state kept before the path was absolute.
func graphIn(t *testing.T, repo, name, file, content string) string {
	t.Helper()
	write(t, filepath.Join(repo, file), content)
	stateDir := filepath.Join(repo, ".agentloop")
	st := NewState(file)
	if err := SaveState(stateDir, name, st); err != nil {
		t.Fatal(err)
	}
	return stateDir
}

func TestFind(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	stateDir := graphIn(t, repo, "g", "g.yaml", "tasks:\n  - {id: a, prompt: do a}\n")
	graphIn(t, repo, "g-x", "gx.yaml", "tasks:\n  - {id: b, prompt: do b}\n")
	f, ok, err := Find(stateDir, "g-a")
	if err != nil || !ok || f.Graph != "g" || f.Task.ID != "a" || f.Repo != repo || f.StateDir != stateDir || f.State.File != filepath.Join(repo, "g.yaml") {
		t.Fatalf("Find(g-a) = %+v, %v, %v", f, ok, err)
	}
	// A graph whose name is another's prefix: the task is the one that exists.
	if f, ok, err := Find(stateDir, "g-x-b"); err != nil || !ok || f.Graph != "g-x" || f.Task.ID != "b" {
		t.Errorf("Find(g-x-b) = %+v, %v, %v", f, ok, err)
	}
	for _, name := range []string{"g-nosuch", "build", "g-", "g"} {
		if _, ok, err := Find(stateDir, name); ok || err != nil {
			t.Errorf("Find(%s) = %v, %v: no graph has it", name, ok, err)
		}
	}
	if err := os.Remove(filepath.Join(repo, "g.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Find(stateDir, "g-a"); err == nil || !strings.Contains(err.Error(), "task file cannot be read") {
		t.Errorf("a graph whose task file is gone: %v", err)
	}
	if _, _, err := Find(filepath.Join(repo, "nosuch"), "g-a"); err != nil {
		t.Errorf("a state folder without graphs: %v", err)
	}
	write(t, StatePath(stateDir, "g"), "{not json")
	if _, _, err := Find(stateDir, "g-a"); err == nil || !strings.Contains(err.Error(), "may be a task of graph g") {
		t.Errorf("an unreadable graph state: %v", err)
	}
}

func TestResumePlan(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	write(t, filepath.Join(repo, "agentloop.yaml"), "procedures:\n  work:\n    agent: {cmd: [my-agent]}\n    gates: [{name: all, run: \"make\"}]\n")
	m := Member{Graph: "g", Repo: repo, StateDir: filepath.Join(repo, ".agentloop"), Task: tasks.Task{
		ID: "a", Prompt: "do a", Procedure: "work", Gates: []tasks.Gate{{Name: "tests", Run: "go test ./..."}},
		Limits: &tasks.Limits{}, Files: []string{"api/**"},
	}}
	m.Task.Limits.MaxIterations = 4
	var gotDir string
	var gotRecorded []string
	configure := func(dir string, recorded []string) (*config.Config, []string, error) {
		gotDir, gotRecorded = dir, recorded
		agentCmd := "graph-agent"
		cfg, err := config.Load(config.Options{WorkDir: dir, Getenv: func(string) string { return "" }, UserConfigDir: t.TempDir(),
			Flags: config.Overrides{AgentCmd: &agentCmd}})
		return cfg, append(recorded, "--max-cost=3"), err
	}
	p, err := ResumePlan(m, []string{"--agent-cmd=graph-agent"}, configure, func(string) string { return "" }, false)
	if err != nil {
		t.Fatal(err)
	}
	if gotDir != repo || !slices.Equal(gotRecorded, []string{"--agent-cmd=graph-agent"}) {
		t.Errorf("configured in %s with %q", gotDir, gotRecorded)
	}
	if p.Name != "g-a" || p.WorkDir != TaskWorkTree(m.StateDir, "g", "a") || p.StateDir != m.StateDir {
		t.Errorf("plan name %s, work dir %s, state dir %s", p.Name, p.WorkDir, p.StateDir)
	}
	if p.Agent.Binary != "graph-agent" {
		t.Errorf("agent %q, want the graph's flag's", p.Agent.Binary)
	}
	if len(p.Gates) != 1 || p.Gates[0].Name != "tests" || p.Proc.Limits.MaxIterations != 4 || !slices.Equal(p.Scope, []string{"api/**"}) || !strings.Contains(p.Task, "do a") {
		t.Errorf("the task is not applied: gates %+v, max iterations %d, scope %v, task %q", p.Gates, p.Proc.Limits.MaxIterations, p.Scope, p.Task)
	}
	if !slices.Equal(p.Args, []string{"--agent-cmd=graph-agent", "--max-cost=3"}) {
		t.Errorf("args %q", p.Args)
	}
	m.Task.Procedure = "nosuch"
	if _, err := ResumePlan(m, nil, configure, func(string) string { return "" }, false); err == nil || !strings.Contains(err.Error(), "task a") {
		t.Errorf("an unknown procedure: %v", err)
	}
}
