package graph

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/testenv"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mergeRepo is a repository with one commit (shared.txt "one") and a Merger
// of graph g on it.
func mergeRepo(t *testing.T) *Merger {
	t.Helper()
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	write(t, filepath.Join(repo, ".gitignore"), ".agentloop/\n")
	write(t, filepath.Join(repo, "shared.txt"), "one\n")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "start")
	return &Merger{Repo: repo, StateDir: filepath.Join(repo, ".agentloop"), Graph: "g"}
}

// task makes the worktree of the task id from the repository's HEAD and
// commits the files there on its branch.
func task(t *testing.T, m *Merger, id string, files map[string]string) string {
	t.Helper()
	if err := AddTaskWorkTree(t.Context(), m.Repo, m.StateDir, m.Graph, id, "HEAD"); err != nil {
		t.Fatal(err)
	}
	wt := tasks.TaskWorkTree(m.StateDir, m.Graph, id)
	for name, content := range files {
		write(t, filepath.Join(wt, name), content)
	}
	if err := CommitTask(t.Context(), wt, tasks.Task{ID: id, Prompt: "task " + id}); err != nil {
		t.Fatal(err)
	}
	return wt
}

// tip is the commit the branch of the task id is at: the checkpoint its loop
// verified, in these tests, when the task was just made.
func tip(t *testing.T, m *Merger, id string) string {
	t.Helper()
	return gitx.BranchCommit(t.Context(), m.Repo, tasks.TaskBranch(m.Graph, id))
}

// gateOn is a gate check that passes when the file in the merged result holds
// want, and records the trees it ran on.
func gateOn(file, want string, ran *[]string) GateCheck {
	return func(_ context.Context, dir string) (bool, string, error) {
		b, _ := os.ReadFile(filepath.Join(dir, file))
		*ran = append(*ran, string(b))
		if !strings.Contains(string(b), want) {
			return false, "check fails: " + file + " lacks " + want, nil
		}
		return true, "", nil
	}
}

func TestMergeWithNothingMergedSince(t *testing.T) {
	testenv.NeedTool(t, "git")
	t.Parallel()
	m := mergeRepo(t)
	task(t, m, "a", map[string]string{"a.txt": "a\n"})
	var ran []string
	// The loop succeeded on this very tree: its gates are not run again.
	r, err := m.Merge(t.Context(), "a", tip(t, m, "a"), gateOn("a.txt", "a", &ran))
	if err != nil || !r.Merged || r.Already || len(ran) != 0 {
		t.Fatalf("merge of a verified task: %+v, %v, gates ran on %q", r, err, ran)
	}
	if got := read(t, filepath.Join(m.Repo, "a.txt")); got != "a\n" {
		t.Errorf("a.txt on main = %q", got)
	}
	if msg := git(t, m.Repo, "log", "-1", "--format=%s"); !strings.Contains(msg, "Merge branch 'agentloop/g/a'") {
		t.Errorf("merge commit %q", msg)
	}
	// Asked again (the graph's state lost it): found merged, nothing done.
	head := gitx.CommitOf(t.Context(), m.Repo, "HEAD")
	r, err = m.Merge(t.Context(), "a", tip(t, m, "a"), nil)
	if err != nil || !r.Merged || !r.Already || r.Head != head || gitx.CommitOf(t.Context(), m.Repo, "HEAD") != head {
		t.Errorf("merge of a merged task: %+v, %v", r, err)
	}
}

func TestMergeNotVerifiedRunsTheGates(t *testing.T) {
	testenv.NeedTool(t, "git")
	t.Parallel()
	m := mergeRepo(t)
	task(t, m, "a", map[string]string{"a.txt": "a\n"})
	var ran []string
	r, err := m.Merge(t.Context(), "a", "", gateOn("a.txt", "b", &ran))
	if err != nil || r.Merged || r.Issue != tasks.MergeGates || !strings.Contains(r.Gates, "lacks b") || len(ran) != 1 {
		t.Fatalf("merge of a completed task failing its gate: %+v, %v, ran %q", r, err, ran)
	}
	if _, err := os.Stat(filepath.Join(m.Repo, "a.txt")); err == nil {
		t.Error("a task whose gates fail was merged")
	}
}

func TestMergeCombinesWithTheWorkMergedSince(t *testing.T) {
	testenv.NeedTool(t, "git")
	t.Parallel()
	m := mergeRepo(t)
	task(t, m, "a", map[string]string{"a.txt": "a\n"})
	wtB := task(t, m, "b", map[string]string{"b.txt": "b\n"})
	if r, err := m.Merge(t.Context(), "a", tip(t, m, "a"), nil); err != nil || !r.Merged {
		t.Fatalf("merge a: %+v, %v", r, err)
	}
	// b's loop succeeded on its own tree, which lacks a.txt: its gates run on
	// the merged result, which has it.
	var ran []string
	r, err := m.Merge(t.Context(), "b", tip(t, m, "b"), gateOn("a.txt", "a", &ran))
	if err != nil || !r.Merged || len(ran) != 1 || ran[0] != "a\n" {
		t.Fatalf("merge b: %+v, %v, gates ran on %q", r, err, ran)
	}
	for _, f := range []string{"a.txt", "b.txt", "shared.txt"} {
		if _, err := os.Stat(filepath.Join(m.Repo, f)); err != nil {
			t.Errorf("main lacks %s after both merges", f)
		}
	}
	// What was checked is what main is: the worktree's tree, on b's branch.
	if main, br := git(t, m.Repo, "rev-parse", "HEAD^{tree}"), git(t, wtB, "rev-parse", "HEAD^{tree}"); main != br {
		t.Errorf("main's tree %s is not the checked tree %s", main, br)
	}
	if got := gitx.CurrentBranch(t.Context(), wtB); got != "agentloop/g/b" {
		t.Errorf("b's worktree is on %q, want its branch", got)
	}
	if parents := git(t, m.Repo, "log", "-1", "--format=%P"); len(strings.Fields(parents)) != 2 {
		t.Errorf("the merge of b is not a merge commit: parents %q", parents)
	}
	if first := git(t, m.Repo, "rev-parse", "HEAD^1"); !strings.Contains(git(t, m.Repo, "log", "-1", "--format=%s", first), "agentloop/g/a") {
		t.Errorf("main's first parent is not a's merge: %s", first)
	}
}

func TestMergeKeepsAFailingMergedResultForTheTask(t *testing.T) {
	testenv.NeedTool(t, "git")
	t.Parallel()
	m := mergeRepo(t)
	task(t, m, "a", map[string]string{"lib.txt": "v2\n"})
	wtB := task(t, m, "b", map[string]string{"use.txt": "uses v1\n"})
	if r, err := m.Merge(t.Context(), "a", tip(t, m, "a"), nil); err != nil || !r.Merged {
		t.Fatalf("merge a: %+v, %v", r, err)
	}
	head := gitx.CommitOf(t.Context(), m.Repo, "HEAD")
	var ran []string
	r, err := m.Merge(t.Context(), "b", tip(t, m, "b"), gateOn("use.txt", "v2", &ran))
	if err != nil || r.Merged || r.Issue != tasks.MergeGates {
		t.Fatalf("merge b: %+v, %v", r, err)
	}
	if gitx.CommitOf(t.Context(), m.Repo, "HEAD") != head {
		t.Error("main moved though b's gates fail on the merged result")
	}
	// b's worktree and branch hold the merged result, for its loop to fix.
	if got := read(t, filepath.Join(wtB, "lib.txt")); got != "v2\n" {
		t.Errorf("b's worktree lacks a's work: lib.txt %q", got)
	}
	if !gitx.IsAncestor(t.Context(), m.Repo, head, gitx.BranchCommit(t.Context(), m.Repo, "agentloop/g/b")) {
		t.Error("b's branch does not hold the work merged before it")
	}
	o := r.Outcome(tasks.Outcome{State: tasks.StateSucceeded})
	if o.State != tasks.StateEscalated || o.Unmerged != tasks.MergeGates || !strings.Contains(o.Reason, "use.txt lacks v2") {
		t.Errorf("outcome %+v", o)
	}
	// Fixed in the worktree (as b's resumed loop does), it merges.
	write(t, filepath.Join(wtB, "use.txt"), "uses v2\n")
	if err := CommitTask(t.Context(), wtB, tasks.Task{ID: "b", Prompt: "b"}); err != nil {
		t.Fatal(err)
	}
	if r, err := m.Merge(t.Context(), "b", tip(t, m, "b"), gateOn("use.txt", "v2", &ran)); err != nil || !r.Merged {
		t.Fatalf("merge b fixed: %+v, %v", r, err)
	}
	if got := read(t, filepath.Join(m.Repo, "use.txt")); got != "uses v2\n" {
		t.Errorf("use.txt on main = %q", got)
	}
}

// A merge tried again after its task's gates failed on the merged result (the
// graph run again, no guidance given) finds on the task's branch that merged
// result, not the tree the task's loop verified: the gates run again, fail
// again, and nothing is merged, however often it is tried.
func TestMergeAgainAfterItsGatesFailed(t *testing.T) {
	testenv.NeedTool(t, "git")
	t.Parallel()
	m := mergeRepo(t)
	task(t, m, "a", map[string]string{"lib.txt": "v2\n"})
	task(t, m, "b", map[string]string{"use.txt": "uses v1\n"})
	verified := tip(t, m, "b") // where b's loop passed its gates
	if r, err := m.Merge(t.Context(), "a", tip(t, m, "a"), nil); err != nil || !r.Merged {
		t.Fatalf("merge a: %+v, %v", r, err)
	}
	head := gitx.CommitOf(t.Context(), m.Repo, "HEAD")
	for try := 1; try <= 3; try++ {
		var ran []string
		r, err := m.Merge(t.Context(), "b", verified, gateOn("use.txt", "v2", &ran))
		if err != nil || r.Merged || r.Issue != tasks.MergeGates || len(ran) != 1 {
			t.Fatalf("merge b, try %d: %+v, %v, gates ran on %q: want not merged, its gates run and failing", try, r, err, ran)
		}
		if got := gitx.CommitOf(t.Context(), m.Repo, "HEAD"); got != head {
			t.Fatalf("try %d: main moved to %s though b's gates fail on the merged result", try, got)
		}
	}
	if _, err := os.Stat(filepath.Join(m.Repo, "use.txt")); err == nil {
		t.Error("b's work is on main")
	}
}

func TestMergeConflict(t *testing.T) {
	testenv.NeedTool(t, "git")
	t.Parallel()
	m := mergeRepo(t)
	task(t, m, "a", map[string]string{"shared.txt": "from a\n"})
	wtB := task(t, m, "b", map[string]string{"shared.txt": "from b\n"})
	if r, err := m.Merge(t.Context(), "a", tip(t, m, "a"), nil); err != nil || !r.Merged {
		t.Fatalf("merge a: %+v, %v", r, err)
	}
	tipB := tip(t, m, "b")
	r, err := m.Merge(t.Context(), "b", tipB, nil)
	if err != nil || r.Merged || r.Issue != tasks.MergeConflict || !cmp.Equal(r.Files, []string{"shared.txt"}) {
		t.Fatalf("merge b: %+v, %v", r, err)
	}
	if got := read(t, filepath.Join(m.Repo, "shared.txt")); got != "from a\n" {
		t.Errorf("shared.txt on main = %q", got)
	}
	// b's worktree is back as b left it, on its branch, with nothing in progress.
	if got := read(t, filepath.Join(wtB, "shared.txt")); got != "from b\n" {
		t.Errorf("b's worktree shared.txt = %q", got)
	}
	if gitx.CurrentBranch(t.Context(), wtB) != "agentloop/g/b" || gitx.BranchCommit(t.Context(), m.Repo, "agentloop/g/b") != tipB {
		t.Error("b's worktree or branch moved after the conflict")
	}
	if st := git(t, wtB, "status", "--porcelain"); st != "" {
		t.Errorf("b's worktree left with %q", st)
	}
	o := r.Outcome(tasks.Outcome{State: tasks.StateSucceeded})
	if o.State != tasks.StateEscalated || o.Unmerged != tasks.MergeConflict || !cmp.Equal(o.Conflicts, []string{"shared.txt"}) {
		t.Errorf("outcome %+v", o)
	}
}

func TestMergeRefusedByUncommittedChanges(t *testing.T) {
	testenv.NeedTool(t, "git")
	t.Parallel()
	m := mergeRepo(t)
	task(t, m, "a", map[string]string{"a.txt": "a\n"})
	write(t, filepath.Join(m.Repo, "shared.txt"), "mine\n")
	r, err := m.Merge(t.Context(), "a", tip(t, m, "a"), nil)
	if err != nil || r.Merged || r.Issue != tasks.MergeRefused || !cmp.Equal(r.Files, []string{"shared.txt"}) {
		t.Fatalf("merge into a dirty tree: %+v, %v", r, err)
	}
	if got := read(t, filepath.Join(m.Repo, "shared.txt")); got != "mine\n" {
		t.Errorf("the person's change was touched: %q", got)
	}
	if o := r.Outcome(tasks.Outcome{State: tasks.StateSucceeded}); !strings.Contains(o.Reason, "uncommitted changes to shared.txt") {
		t.Errorf("outcome %+v", o)
	}
}

func TestMergeAfterAMergeCutShort(t *testing.T) {
	testenv.NeedTool(t, "git")
	t.Parallel()
	m := mergeRepo(t)
	task(t, m, "a", map[string]string{"shared.txt": "from a\n"})
	wtB := task(t, m, "b", map[string]string{"b.txt": "b\n"})
	if r, err := m.Merge(t.Context(), "a", tip(t, m, "a"), nil); err != nil || !r.Merged {
		t.Fatalf("merge a: %+v, %v", r, err)
	}
	// A process killed while it merged left b's worktree detached, mid-merge.
	git(t, wtB, "checkout", "-q", "--detach", "main")
	git(t, wtB, "merge", "--no-commit", "--no-ff", "agentloop/g/b")
	r, err := m.Merge(t.Context(), "b", tip(t, m, "b"), nil)
	if err != nil || !r.Merged {
		t.Fatalf("merge b after a cut merge: %+v, %v", r, err)
	}
	if got := read(t, filepath.Join(m.Repo, "b.txt")); got != "b\n" {
		t.Errorf("b.txt on main = %q", got)
	}
}

func TestMergeOfAGoneBranch(t *testing.T) {
	testenv.NeedTool(t, "git")
	t.Parallel()
	m := mergeRepo(t)
	if _, err := m.Merge(t.Context(), "nosuch", tip(t, m, "nosuch"), nil); err == nil || !strings.Contains(err.Error(), "branch agentloop/g/nosuch is gone") {
		t.Errorf("merge of a task without a branch: %v", err)
	}
}

func TestMergeWithChangesLeftInTheWorktree(t *testing.T) {
	testenv.NeedTool(t, "git")
	t.Parallel()
	m := mergeRepo(t)
	wt := task(t, m, "a", map[string]string{"a.txt": "a\n"})
	write(t, filepath.Join(wt, "a.txt"), "left\n")
	write(t, filepath.Join(wt, "new.txt"), "left\n")
	// Changes the engine did not commit are not lost: the merge stops there.
	if r, err := m.Merge(t.Context(), "a", tip(t, m, "a"), nil); err == nil || r.Merged || !strings.Contains(err.Error(), "a.txt, new.txt") {
		t.Fatalf("merge with changes in the worktree: %+v, %v", r, err)
	}
	if got := read(t, filepath.Join(wt, "a.txt")); got != "left\n" {
		t.Errorf("the worktree's change was touched: %q", got)
	}
	// Committed on another worker, the branch is the task's work: a worker
	// that died in this clone left these; they are discarded.
	var warned []string
	tipA := tip(t, m, "a")
	m.Committed = func(id string) string {
		if id == "a" {
			return tipA
		}
		return ""
	}
	m.Warnf = func(format string, args ...any) { warned = append(warned, format) }
	if r, err := m.Merge(t.Context(), "a", tipA, nil); err != nil || !r.Merged || len(warned) != 1 {
		t.Fatalf("merge of a branch committed elsewhere: %+v, %v, warnings %q", r, err, warned)
	}
	if got := read(t, filepath.Join(m.Repo, "a.txt")); got != "a\n" {
		t.Errorf("a.txt on main = %q, want the branch's", got)
	}
}

// combineIn is the merge of a git too old to merge without a work tree: in
// the task's worktree, the branch set to the result; a conflict leaves the
// worktree as it was.
func TestCombineInTheWorktree(t *testing.T) {
	testenv.NeedTool(t, "git")
	t.Parallel()
	m := mergeRepo(t)
	task(t, m, "a", map[string]string{"a.txt": "a\n", "shared.txt": "from a\n"})
	wtB := task(t, m, "b", map[string]string{"b.txt": "b\n"})
	wtC := task(t, m, "c", map[string]string{"shared.txt": "from c\n"})
	if r, err := m.Merge(t.Context(), "a", tip(t, m, "a"), nil); err != nil || !r.Merged {
		t.Fatalf("merge a: %+v, %v", r, err)
	}
	head := gitx.CommitOf(t.Context(), m.Repo, "HEAD")
	merged, files, err := m.combineIn(t.Context(), wtB, head, "agentloop/g/b")
	if err != nil || len(files) != 0 || gitx.BranchCommit(t.Context(), m.Repo, "agentloop/g/b") != merged || gitx.CurrentBranch(t.Context(), wtB) != "agentloop/g/b" {
		t.Fatalf("combine b: %s, %v, %v", merged, files, err)
	}
	if got := read(t, filepath.Join(wtB, "a.txt")); got != "a\n" {
		t.Errorf("b's worktree lacks a's work: %q", got)
	}
	tip := gitx.BranchCommit(t.Context(), m.Repo, "agentloop/g/c")
	if _, files, err := m.combineIn(t.Context(), wtC, head, "agentloop/g/c"); err != nil || !cmp.Equal(files, []string{"shared.txt"}) {
		t.Fatalf("combine c: %v, %v", files, err)
	}
	if gitx.BranchCommit(t.Context(), m.Repo, "agentloop/g/c") != tip || gitx.CurrentBranch(t.Context(), wtC) != "agentloop/g/c" || read(t, filepath.Join(wtC, "shared.txt")) != "from c\n" {
		t.Error("c's worktree or branch moved after the conflict")
	}
}

// PruneMerged removes what a run cut short after a merge left of a merged
// task: a's worktree and branch, b's branch alone; c, not merged, keeps both,
// and d, merged and pruned already, costs nothing and warns of nothing.
func TestPruneMerged(t *testing.T) {
	testenv.NeedTool(t, "git")
	t.Parallel()
	m := mergeRepo(t)
	for _, id := range []string{"a", "b", "c"} {
		task(t, m, id, map[string]string{id + ".txt": id + "\n"})
	}
	for _, id := range []string{"a", "b"} {
		if r, err := m.Merge(t.Context(), id, tip(t, m, id), nil); err != nil || !r.Merged {
			t.Fatalf("merge %s: %+v, %v", id, r, err)
		}
	}
	if err := gitx.RemoveWorktree(t.Context(), m.Repo, tasks.TaskWorkTree(m.StateDir, m.Graph, "b"), false); err != nil {
		t.Fatal(err)
	}
	var warned []string
	warnf := func(format string, args ...any) { warned = append(warned, format) }
	PruneMerged(t.Context(), m.Repo, m.StateDir, m.Graph, []string{"a", "b", "d"}, warnf)
	if len(warned) != 0 {
		t.Errorf("warnings %q", warned)
	}
	for id, keep := range map[string]bool{"a": false, "b": false, "c": true} {
		_, err := os.Stat(tasks.TaskWorkTree(m.StateDir, m.Graph, id))
		if hasTree := err == nil; hasTree != keep && id != "b" {
			t.Errorf("task %s: worktree there %v, want %v", id, hasTree, keep)
		}
		if hasBranch := tip(t, m, id) != ""; hasBranch != keep {
			t.Errorf("task %s: branch there %v, want %v", id, hasBranch, keep)
		}
	}
}
