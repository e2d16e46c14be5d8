package tasks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/testenv"
)

var _ MergeFunc = gitx.Merge // the production merge fits

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestScheduleThenMergeBackWithGit runs three tasks in worktrees, each committing
// on its own branch, then merges them back in completion order with gitx.Merge:
// the third conflicts with the second and becomes an escalation.
func TestScheduleThenMergeBackWithGit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git")
	}
	testenv.NeedTool(t, "git")
	t.Parallel()
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, repo, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(repo, "shared.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, repo, "add", ".")
	gitCmd(t, repo, "commit", "-q", "-m", "start")

	edits := map[string][2]string{"a": {"a.txt", "from a\n"}, "b": {"shared.txt", "from b\n"}, "c": {"shared.txt", "from c\n"}}
	branch := func(id string) string { return "agentloop/task-" + id }
	var mu sync.Mutex // git worktree add is not safe to run concurrently on one repo
	s := &Scheduler{Parallel: 1, Run: func(ctx context.Context, task Task) (Outcome, error) {
		mu.Lock()
		defer mu.Unlock()
		wt := filepath.Join(filepath.Dir(repo), task.ID)
		if err := gitx.AddWorktree(ctx, repo, wt, branch(task.ID), "main"); err != nil {
			return Outcome{}, err
		}
		e := edits[task.ID]
		if err := os.WriteFile(filepath.Join(wt, e[0]), []byte(e[1]), 0o644); err != nil {
			return Outcome{}, err
		}
		gitCmd(t, wt, "add", ".")
		gitCmd(t, wt, "commit", "-q", "-m", "task "+task.ID)
		return Outcome{State: StateSucceeded, Branch: branch(task.ID)}, gitx.RemoveWorktree(ctx, repo, wt, false)
	}}
	out, err := s.Execute(t.Context(), mustGraph(t, tasksOf("a", "b", "c:a")), nil)
	if err != nil {
		t.Fatal(err)
	}
	order := CompletionOrder(out)
	if diff := cmp.Diff([]string{"a", "b", "c"}, order); diff != "" {
		t.Fatalf("completion order (-want +got):\n%s", diff)
	}
	rs, err := MergeBack(t.Context(), repo, order, branch, gitx.Merge)
	if err != nil {
		t.Fatal(err)
	}
	ApplyMerges(out, rs)
	if o := out["c"]; o.State != StateEscalated || !cmp.Equal(o.Conflicts, []string{"shared.txt"}) {
		t.Errorf("task c after merge-back: %+v", o)
	}
	if got := gitCmd(t, repo, "show", "HEAD:shared.txt"); got != "from b\n" {
		t.Errorf("shared.txt on main = %q, want b's version", got)
	}
	if st := gitCmd(t, repo, "status", "--porcelain"); strings.TrimSpace(st) != "" {
		t.Errorf("main left dirty after the conflict: %q", st)
	}
}
