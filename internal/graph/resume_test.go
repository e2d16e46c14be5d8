package graph

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
