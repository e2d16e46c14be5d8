package gitx

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestWorkspaceIterationsReuseWhatTheyKnow follows a run of iterations: the end
// of one is the start of the next, an iteration that changed nothing makes no
// commit, a restore is where the next one starts, and the diff is taken between
// the trees already written.
func TestWorkspaceIterationsReuseWhatTheyKnow(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.go": "package a\n"})
	before := gitState(t, dir)
	w := &Workspace{Dir: dir}
	defer w.Close()
	ctx := t.Context()

	start1, _, err := w.Start(ctx, "refs/agentloop/n/r/iter-1-start", "start 1")
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "rev-parse", "refs/agentloop/n/r/iter-1-start"); got != start1 {
		t.Fatalf("the first start is a snapshot under its ref: ref %s, commit %s", got, start1)
	}
	write(t, dir, map[string]string{"b.go": "package a\n"}) // untracked
	end1, tree1, err := w.Snapshot(ctx, "refs/agentloop/n/r/iter-1", "end 1")
	if err != nil || end1 == start1 {
		t.Fatalf("Snapshot = %s, %v; want a new commit", end1, err)
	}
	if got := run(t, dir, "rev-parse", end1+"^"); got != start1 {
		t.Errorf("parent of iteration 1 = %s, want its start %s", got, start1)
	}
	facts, text, err := w.Diff(ctx, start1)
	if err != nil || !strings.Contains(text, "+++ b/b.go") || facts.TreeHash != tree1 {
		t.Fatalf("Diff = %+v, %q, %v", facts, text, err)
	}

	start2, _, err := w.Start(ctx, "refs/agentloop/n/r/iter-2-start", "start 2")
	if err != nil || start2 != end1 {
		t.Fatalf("Start = %s, %v; want the end of iteration 1 (%s)", start2, err, end1)
	}
	// Each attempt keeps a ref to its start, even a reused one (a loose ref
	// file, no new commit).
	if got := run(t, dir, "rev-parse", "refs/agentloop/n/r/iter-2-start"); got != end1 {
		t.Errorf("a reused start's ref = %s, want %s", got, end1)
	}
	// Nothing changes: no new commit, the ref points at the same checkpoint.
	end2, tree2, err := w.Snapshot(ctx, "refs/agentloop/n/r/iter-2", "end 2")
	if err != nil || end2 != end1 || tree2 != tree1 {
		t.Fatalf("Snapshot of an unchanged tree = %s %s, %v; want %s %s", end2, tree2, err, end1, tree1)
	}
	if got := run(t, dir, "rev-parse", "refs/agentloop/n/r/iter-2"); got != end1 {
		t.Errorf("iter-2 ref = %s, want %s", got, end1)
	}
	if _, text, err := w.Diff(ctx, start2); err != nil || text != "" {
		t.Errorf("Diff of an unchanged iteration = %q, %v", text, err)
	}

	// The untracked file is deleted: the private index must not keep it.
	if err := os.Remove(filepath.Join(dir, "b.go")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"a.go": "package a // changed\n"})
	end3, _, err := w.Snapshot(ctx, "refs/agentloop/n/r/iter-3", "end 3")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.go"}, lsTree(t, dir, end3)); diff != "" {
		t.Errorf("iteration 3's tree (-want +got):\n%s", diff)
	}

	// Roll back to iteration 1: the next iteration starts there.
	if err := w.Restore(ctx, end1); err != nil {
		t.Fatal(err)
	}
	if start4, _, err := w.Start(ctx, "refs/agentloop/n/r/iter-4-start", "start 4"); err != nil || start4 != end1 {
		t.Errorf("Start after Restore = %s, %v; want %s", start4, err, end1)
	}
	if got := tree(t, dir); got["b.go"] != "package a\n" || got["a.go"] != "package a\n" {
		t.Errorf("tree after Restore = %v", got)
	}
	if after := gitState(t, dir); after != before {
		t.Errorf("the user's HEAD, branch or index moved (-before +after):\n%s", cmp.Diff(before, after))
	}
}

// TestWorkspacePrivateIndexLifecycle: the private index lives in the git
// directory while the workspace is used, Close removes it, and one left by a
// process that is gone is removed by the next workspace.
func TestWorkspacePrivateIndexLifecycle(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.go": "package a\n"})
	gitDir := filepath.Join(dir, ".git")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(gitDir, indexPrefix+itoa(dead.Process.Pid)+"-123")
	if err := os.WriteFile(stale, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &Workspace{Dir: dir}
	if _, _, err := w.Snapshot(t.Context(), "refs/agentloop/n/r/iter-1", "1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the index of a process that is gone was kept: %v", err)
	}
	own, _ := filepath.Glob(filepath.Join(gitDir, indexPrefix+"*"))
	if len(own) != 1 {
		t.Fatalf("private indexes while in use = %v, want one", own)
	}
	w.Close()
	if left, _ := filepath.Glob(filepath.Join(gitDir, indexPrefix+"*")); len(left) != 0 {
		t.Errorf("Close left %v", left)
	}
	// Still usable after Close.
	if _, _, err := w.Snapshot(t.Context(), "refs/agentloop/n/r/iter-2", "2"); err != nil {
		t.Fatal(err)
	}
	w.Close()
}

// TestWorkspaceGitProcessesPerIteration counts the git processes of a run's
// iterations (start, the guard's record, agent edit, the guard's check,
// checkpoint, diff). The guard reads the ref files, no process. The first start learns the
// repository in one process and, the work tree being clean, takes HEAD as its
// checkpoint after one staging pass; a later start is free; a checkpoint is one
// staging pass, a tree and a commit (its ref is written as a file; the commit,
// after the session's first, too: [commitWriter]); the diffs come from one
// process the session keeps ([treeDiffer]).
func TestWorkspaceGitProcessesPerIteration(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.go": "package a\n"})
	head := run(t, dir, "rev-parse", "HEAD")
	log := logGitCalls(t)
	w := &Workspace{Dir: dir}
	defer w.Close()
	ctx := t.Context()
	iterate := func(n int, edit bool) []string {
		t.Helper()
		_ = os.Remove(log)
		ref := "refs/agentloop/n/r/iter-" + itoa(n)
		start, _, err := w.Start(ctx, ref+"-start", "start")
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 && start != head {
			t.Errorf("the start of a clean work tree is %s, want HEAD %s", start, head)
		}
		g, err := w.Guard(ctx, "refs/agentloop/n/r/")
		if err != nil {
			t.Fatal(err)
		}
		if edit {
			write(t, dir, map[string]string{"a.go": "package a // " + itoa(n) + "\n"})
		}
		if changes := g.Check(ctx); len(changes) != 0 {
			t.Errorf("the guard found %s", changes)
		}
		if _, _, err := w.Snapshot(ctx, ref, "end"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := w.Diff(ctx, start); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(log)
		if got := run(t, dir, "rev-parse", ref); got == "" {
			t.Errorf("%s is not set", ref)
		}
		calls := strings.Fields(string(b))
		if n == 1 {
			// The diff-tree the start began logs its call while the
			// iteration goes on: when, among the others, is the shell's.
			calls = slices.DeleteFunc(calls, func(c string) bool { return c == "-c" })
			calls = append(calls, "-c")
		}
		return calls
	}
	_ = os.Remove(log)
	if diff := cmp.Diff([]string{"rev-parse", "add", "write-tree", "add", "write-tree", "commit-tree", "-c" /* -c core.quotePath=false diff-tree --stdin, started with the first start */}, iterate(1, true)); diff != "" {
		t.Errorf("git commands of the first iteration (-want +got):\n%s", diff)
	}
	// The first commit git made taught the checkpointer to write the next
	// ones; the first diff's git diff-tree --stdin makes the next ones too.
	if diff := cmp.Diff([]string{"add", "write-tree"}, iterate(2, true)); diff != "" {
		t.Errorf("git commands of an iteration that edits (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"add", "write-tree"}, iterate(3, false)); diff != "" {
		t.Errorf("git commands of an iteration that changes nothing (-want +got):\n%s", diff)
	}
}

// logGitCalls puts a git on PATH that logs its first argument, a line per
// process, in the file it returns, and runs the real git.
func logGitCalls(t *testing.T) string {
	t.Helper()
	real := testenv.NeedTool(t, "git")
	shim := t.TempDir()
	log := filepath.Join(shim, "calls")
	script := "#!/bin/sh\necho \"$1\" >>" + log + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(shim, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", shim+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// TestFirstCheckpointBesidePackedRefsAsksGitNothing: a run's first
// checkpoint in a repository whose refs were packed (a worker packs its
// clone's, git's gc does) finds its ref missing from the files, loose and
// packed, without a git process: it asked git, one process a run.
func TestFirstCheckpointBesidePackedRefsAsksGitNothing(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.go": "package a\n"})
	run(t, dir, "update-ref", "refs/agentloop/n/old/iter-1", "HEAD")
	run(t, dir, "pack-refs", "--all")
	write(t, dir, map[string]string{"a.go": "package a // dirty\n"})
	log := logGitCalls(t)
	w := &Workspace{Dir: dir}
	defer w.Close()
	if _, _, err := w.Start(t.Context(), "refs/agentloop/n/r/iter-1-start", "start"); err != nil {
		t.Fatal(err)
	}
	w.Close() // the diff-tree the start began has logged its call
	b, _ := os.ReadFile(log)
	if diff := cmp.Diff([]string{"rev-parse", "add", "write-tree", "commit-tree", "-c" /* diff-tree --stdin */}, strings.Fields(string(b))); diff != "" {
		t.Errorf("git commands of a dirty start beside packed refs (-want +got):\n%s", diff)
	}
	if got := run(t, dir, "rev-parse", "refs/agentloop/n/r/iter-1-start"); got == "" {
		t.Error("the start checkpoint is not set")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
