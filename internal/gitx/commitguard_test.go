package gitx

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCommitWriterAsGitDoes: the writer leaves to git what it would not
// write as git does: a commit whose dates git wrote in another offset than
// the writer's clock gives (Go and git read TZ apart: "JST-9" is UTC to
// Go), a message git re-encodes (a noncharacter); in a shared repository
// its object folders keep git's setgid bit; core.fsync in a linked
// worktree's own configuration is seen.
func TestCommitWriterAsGitDoes(t *testing.T) {
	needGit(t)
	dir := newRepo(t, map[string]string{"a.go": "package a\n"})
	common := filepath.Join(dir, ".git")
	tree := run(t, dir, "rev-parse", "HEAD^{tree}")
	head := run(t, dir, "rev-parse", "HEAD")
	commit := run(t, dir, "-c", "core.sharedRepository=group", "commit-tree", "--no-gpg-sign", tree, "-m", "m")

	t.Run("another offset", func(t *testing.T) {
		at, _ := time.Parse(time.RFC3339, "2026-11-29T12:00:00+09:00")
		out, err := cmd{dir: dir, args: []string{"commit-tree", "--no-gpg-sign", tree, "-m", "m"},
			env: []string{"GIT_COMMITTER_DATE=@" + fmt.Sprint(at.Unix()) + " +0900", "GIT_AUTHOR_DATE=@" + fmt.Sprint(at.Unix()) + " +0900"}}.run(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		w := commitWriter{now: func() time.Time { return at.UTC() }}
		if w.learn(common, common, out[:len(out)-1]); w.learned {
			t.Error("the writer learned from a commit dated +0900 with a clock at +0000")
		}
	})

	w := commitWriter{}
	if w.learn(common, common, commit); !w.learned {
		t.Fatal("the writer learned nothing")
	}
	if _, ok := w.write(tree, []string{head}, "a noncharacter \uFFFE\n"); ok {
		t.Error("the writer wrote a message git would re-encode")
	}

	t.Run("a shared repository's folders", func(t *testing.T) {
		run(t, dir, "config", "core.sharedRepository", "group")
		fi, err := os.Stat(filepath.Join(common, "objects", commit[:2]))
		if err != nil || fi.Mode()&os.ModeSetgid == 0 {
			t.Skipf("git made its object folder without setgid here (%v, %v)", fi, err)
		}
		var w commitWriter
		if w.learn(common, common, commit); !w.learned {
			t.Fatal("the writer learned nothing")
		}
		before := map[string]bool{} // folders git made, before the shared setting or after
		entries, _ := os.ReadDir(filepath.Join(common, "objects"))
		for _, e := range entries {
			before[e.Name()] = true
		}
		for i := range 40 { // some land in folders git has not made
			name, ok := w.write(tree, []string{head}, fmt.Sprintf("m %d\n", i))
			if !ok {
				t.Fatal("the writer wrote nothing")
			}
			if before[name[:2]] {
				continue
			}
			if di, _ := os.Stat(filepath.Join(common, "objects", name[:2])); di.Mode()&os.ModeSetgid == 0 {
				t.Fatalf("the writer's object folder %s: %v, git's %v", name[:2], di.Mode(), fi.Mode())
			}
		}
	})

	t.Run("a linked worktree's configuration", func(t *testing.T) {
		run(t, dir, "config", "extensions.worktreeConfig", "true")
		wt := filepath.Join(t.TempDir(), "wt")
		run(t, dir, "worktree", "add", "-q", "--detach", wt)
		run(t, wt, "config", "--worktree", "core.fsync", "loose-object")
		gitDir := run(t, wt, "rev-parse", "--absolute-git-dir")
		if !mayConfigureSync(common, gitDir) {
			t.Error("core.fsync in the linked worktree's config.worktree is not seen")
		}
		if mayConfigureSync(common, common) {
			t.Error("the main worktree's configuration taken for the linked one's")
		}
	})
}
