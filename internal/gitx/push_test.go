package gitx

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestPushSetsUpstreamThenPushes(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.txt": "1\n"})
	remote := filepath.Join(t.TempDir(), "remote.git")
	run(t, dir, "init", "-q", "--bare", remote)
	run(t, dir, "remote", "add", "origin", remote)

	if err := Push(t.Context(), dir, "origin"); err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "rev-parse", "--abbrev-ref", "main@{upstream}"); got != "origin/main" {
		t.Errorf("upstream = %q, want origin/main", got)
	}
	write(t, dir, map[string]string{"a.txt": "2\n", "b.txt": "new\n", ".agentloop/x": "state"})
	if err := Commit(t.Context(), dir, "agentloop: iteration 1"); err != nil {
		t.Fatal(err)
	}
	if err := Push(t.Context(), dir, ""); err != nil {
		t.Fatal(err)
	}
	if got, want := run(t, remote, "rev-parse", "main"), run(t, dir, "rev-parse", "HEAD"); got != want {
		t.Errorf("remote main = %s, want %s", got, want)
	}
	if got := run(t, remote, "ls-tree", "-r", "--name-only", "main"); got != "a.txt\nb.txt" {
		t.Errorf("pushed files = %q", got)
	}
	if got := run(t, dir, "log", "-1", "--format=%s|%an"); got != "agentloop: iteration 1|Tester" {
		t.Errorf("commit = %q", got)
	}
}

func TestPushErrors(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.txt": "1\n"})
	err := Push(t.Context(), dir, "nowhere")
	if err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("Push to a missing remote: %v", err)
	}
	run(t, dir, "checkout", "-q", "--detach")
	if err := Push(t.Context(), dir, "origin"); !errors.Is(err, ErrDetached) {
		t.Errorf("Push on a detached HEAD: %v, want ErrDetached", err)
	}
}

func TestCommitNothingAndWithoutIdentity(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	if err := Commit(t.Context(), dir, "empty"); err != nil {
		t.Fatalf("Commit with nothing to commit: %v", err)
	}
	if _, err := git(t.Context(), dir, "rev-parse", "-q", "--verify", "HEAD"); err == nil {
		t.Error("Commit with nothing to commit made a commit")
	}
	write(t, dir, map[string]string{"f": "x"})
	if err := Commit(t.Context(), dir, "first"); err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "log", "-1", "--format=%an <%ae>"); got != "agentloop <agentloop@localhost>" {
		t.Errorf("author = %q", got)
	}
}
