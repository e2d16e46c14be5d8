package gitx

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWorktreeMerge(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"shared.txt": "base\n", "a.txt": "a\n"})
	wt := filepath.Join(t.TempDir(), "task-1")
	if err := AddWorktree(t.Context(), repo, wt, "task-1", ""); err != nil {
		t.Fatal(err)
	}
	write(t, wt, map[string]string{"task1.txt": "done\n"})
	run(t, wt, "add", "-A")
	run(t, wt, "commit", "-q", "-m", "task 1")

	conflict, files, err := Merge(t.Context(), repo, "task-1")
	if err != nil || conflict || files != nil {
		t.Fatalf("Merge = %v, %v, %v", conflict, files, err)
	}
	if got := run(t, repo, "rev-list", "--count", "--merges", "HEAD"); got != "1" {
		t.Errorf("merge commits = %s, want 1 (--no-ff)", got)
	}
	if err := RemoveWorktree(t.Context(), repo, wt, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("worktree still there: %v", err)
	}
	// An existing branch is checked out as it is, not reset to base.
	tip := run(t, repo, "rev-parse", "task-1")
	if err := AddWorktree(t.Context(), repo, wt, "task-1", "HEAD~1"); err != nil {
		t.Fatal(err)
	}
	if got := run(t, wt, "rev-parse", "HEAD"); got != tip {
		t.Errorf("existing branch moved to %s, want %s", got, tip)
	}
}

func TestMergeConflictAbortsAndReports(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"shared.txt": "base\n", "other.txt": "o\n"})
	wt := filepath.Join(t.TempDir(), "task-2")
	if err := AddWorktree(t.Context(), repo, wt, "task-2", "main"); err != nil {
		t.Fatal(err)
	}
	write(t, wt, map[string]string{"shared.txt": "from task\n", "other.txt": "task\n", "only.txt": "x"})
	run(t, wt, "add", "-A")
	run(t, wt, "commit", "-q", "-m", "task 2")
	write(t, repo, map[string]string{"shared.txt": "from main\n", "other.txt": "main\n"})
	run(t, repo, "commit", "-q", "-am", "main moved")
	write(t, repo, map[string]string{"untracked.txt": "mine"})
	head := run(t, repo, "rev-parse", "HEAD")
	want := tree(t, repo)

	conflict, files, err := Merge(t.Context(), repo, "task-2")
	if err != nil || !conflict {
		t.Fatalf("Merge = %v, %v, %v; want a conflict", conflict, files, err)
	}
	if diff := cmp.Diff([]string{"other.txt", "shared.txt"}, files); diff != "" {
		t.Errorf("conflicting files (-want +got):\n%s", diff)
	}
	if got := run(t, repo, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved to %s", got)
	}
	if diff := cmp.Diff(want, tree(t, repo)); diff != "" {
		t.Errorf("work tree after the aborted merge (-want +got):\n%s", diff)
	}
	if resolveCommit(t.Context(), repo, "MERGE_HEAD") != "" {
		t.Error("a half-merge was left behind")
	}
}

func TestMergeRefusesDirtyTreeAndUnknownBranch(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n"})
	run(t, repo, "branch", "side")
	write(t, repo, map[string]string{"a.txt": "uncommitted\n"})
	if _, _, err := Merge(t.Context(), repo, "side"); !errors.Is(err, ErrDirty) {
		t.Errorf("Merge on a dirty tree: %v, want ErrDirty", err)
	}
	run(t, repo, "commit", "-q", "-am", "x")
	if c, _, err := Merge(t.Context(), repo, "no-such-branch"); err == nil || c {
		t.Errorf("Merge of an unknown branch = %v, %v", c, err)
	}
}

func TestRemoveWorktreeKeepsChangesUnlessForced(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n"})
	wt := filepath.Join(t.TempDir(), "w")
	if err := AddWorktree(t.Context(), repo, wt, "w", ""); err != nil {
		t.Fatal(err)
	}
	write(t, wt, map[string]string{"work.txt": "unsaved"})
	if err := RemoveWorktree(t.Context(), repo, wt, false); err == nil {
		t.Fatal("RemoveWorktree dropped uncommitted work")
	}
	if _, err := os.Stat(filepath.Join(wt, "work.txt")); err != nil {
		t.Fatal(err)
	}
	if err := RemoveWorktree(t.Context(), repo, wt, true); err != nil {
		t.Fatal(err)
	}
	if err := AddWorktree(t.Context(), repo, filepath.Join(t.TempDir(), "x"), "bad..name", ""); err == nil {
		t.Error("AddWorktree accepted an invalid branch name")
	}
}

func TestMergeConflictedCommitsTheMarkers(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"shared.txt": "base\n", "other.txt": "o\n"})
	wt := filepath.Join(t.TempDir(), "task-3")
	if err := AddWorktree(t.Context(), repo, wt, "task-3", "main"); err != nil {
		t.Fatal(err)
	}
	write(t, wt, map[string]string{"shared.txt": "from task\n"})
	run(t, wt, "commit", "-q", "-am", "task 3")
	write(t, repo, map[string]string{"shared.txt": "from main\n", "other.txt": "main\n"})
	run(t, repo, "commit", "-q", "-am", "main moved")
	main := run(t, repo, "rev-parse", "main")

	files, err := MergeConflicted(t.Context(), wt, "main", "merge main")
	if err != nil || !cmp.Equal(files, []string{"shared.txt"}) {
		t.Fatalf("MergeConflicted = %v, %v; want shared.txt", files, err)
	}
	if got := run(t, wt, "rev-parse", "HEAD^2"); got != main {
		t.Errorf("the merge commit's second parent is %s, want main at %s", got, main)
	}
	if st := run(t, wt, "status", "--porcelain"); st != "" || resolveCommit(t.Context(), wt, "MERGE_HEAD") != "" {
		t.Errorf("left behind: %q", st)
	}
	if left := ConflictMarkers(wt, files); !cmp.Equal(left, []string{"shared.txt"}) {
		t.Errorf("ConflictMarkers = %v", left)
	}
	write(t, wt, map[string]string{"shared.txt": "from both\n"})
	if left := ConflictMarkers(wt, files); left != nil {
		t.Errorf("resolved: ConflictMarkers = %v", left)
	}
	// A clean merge is a merge commit, nothing to resolve.
	write(t, repo, map[string]string{"other.txt": "main again\n"})
	run(t, repo, "commit", "-q", "-am", "main moved again")
	run(t, wt, "commit", "-q", "-am", "resolved")
	if files, err := MergeConflicted(t.Context(), wt, "main", "merge main"); err != nil || files != nil {
		t.Errorf("a clean merge: %v, %v", files, err)
	}
	if got := run(t, wt, "rev-parse", "HEAD^2"); got != run(t, repo, "rev-parse", "main") {
		t.Errorf("the clean merge's second parent is %s", got)
	}
}
