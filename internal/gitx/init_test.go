package gitx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInit(t *testing.T) {
	needGit(t)
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Init(t.Context(), dir, "first"); err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "log", "--format=%s"); strings.TrimSpace(got) != "first" {
		t.Errorf("log = %q, want the first commit", got)
	}
	if got := run(t, dir, "ls-files"); strings.TrimSpace(got) != "a.txt" {
		t.Errorf("files = %q, want a.txt", got)
	}
	// again: nothing changes
	if err := Init(t.Context(), dir, "second"); err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "rev-list", "--count", "HEAD"); strings.TrimSpace(got) != "1" {
		t.Errorf("commits = %q after a second Init, want 1", got)
	}
}
