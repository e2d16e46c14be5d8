package temporal

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRepoID: a repository's identity is made once and kept in its state
// folder; two work trees have two; a run's key carries it and gives the name
// back.
func TestRepoID(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	idA, err := RepoID(filepath.Join(a, ".agentloop"), a)
	if err != nil || !validRepoID(idA) {
		t.Fatalf("RepoID = %q, %v", idA, err)
	}
	idB, err := RepoID(filepath.Join(b, ".agentloop"), b)
	if err != nil || idB == idA {
		t.Errorf("two work trees: %q and %q (%v), want two identities", idA, idB, err)
	}
	if _, err := os.Stat(filepath.Join(a, ".agentloop", ".gitignore")); err != nil {
		t.Errorf("the state folder RepoID made has no .gitignore: %v", err)
	}
	if got := KnownRepoID(filepath.Join(a, ".agentloop")); got != idA {
		t.Errorf("KnownRepoID = %q, want the kept %q", got, idA)
	}
	if err := os.WriteFile(filepath.Join(a, ".agentloop", repoIDFile), []byte("kept0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := RepoID(filepath.Join(a, ".agentloop"), a); got != "kept0" || err != nil {
		t.Errorf("RepoID = %q, %v; want the identity kept in the state folder", got, err)
	}
	if got := KnownRepoID(t.TempDir()); got != "" {
		t.Errorf("KnownRepoID of a folder without one = %q, want none", got)
	}
	key := Scoped("build", idA)
	if name, repo := Unscoped(key); name != "build" || repo != idA || WorkflowID(key) != "agentloop-build@"+idA {
		t.Errorf("key %q: name %q, repository %q, workflow %q", key, name, repo, WorkflowID(key))
	}
	if Scoped("g-task", "") != "g-task" {
		t.Errorf("a key without a repository is the name alone")
	}
}
