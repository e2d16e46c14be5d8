package gitx

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRestoreKeeping: a work tree that differs from agentloop's last
// checkpoint is kept under the backup ref, with the paths that differ,
// before the restore; a second backup of the same name goes under -2 and
// leaves the first as it was; a tree as agentloop left it keeps nothing.
func TestRestoreKeeping(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.go": "a\n", "b.go": "b\n"})
	ws := &Workspace{Dir: dir}
	defer ws.Close()
	start, _, err := ws.Snapshot(t.Context(), "refs/agentloop/t/r/iter-0", "start")
	if err != nil {
		t.Fatal(err)
	}
	const backup = "refs/agentloop/t/r/kept"
	want := map[string]string{"a.go": "a\n", "b.go": "b\n"}

	write(t, dir, map[string]string{"a.go": "one\n"})
	first, err := ws.RestoreKeeping(t.Context(), start, "", backup, "kept: first")
	if err != nil {
		t.Fatal(err)
	}
	if first.Ref != backup || first.Commit == "" || !cmp.Equal(first.Paths, []string{"a.go"}) {
		t.Errorf("first backup %+v, want a.go kept under %s", first, backup)
	}
	if diff := cmp.Diff(want, tree(t, dir)); diff != "" {
		t.Errorf("work tree after the first restore (-want +got):\n%s", diff)
	}

	write(t, dir, map[string]string{"a.go": "two\n", "new.txt": "untracked\n"})
	second, err := ws.RestoreKeeping(t.Context(), start, "", backup, "kept: second")
	if err != nil {
		t.Fatal(err)
	}
	if second.Ref != backup+"-2" || second.Commit == first.Commit || !cmp.Equal(second.Paths, []string{"a.go", "new.txt"}) {
		t.Errorf("second backup %+v, want a.go and new.txt kept under %s-2", second, backup)
	}
	if diff := cmp.Diff(want, tree(t, dir)); diff != "" {
		t.Errorf("work tree after the second restore (-want +got):\n%s", diff)
	}
	for _, c := range []struct{ ref, commit, aGo string }{{backup, first.Commit, "one"}, {backup + "-2", second.Commit, "two"}} {
		if got := run(t, dir, "rev-parse", c.ref); got != c.commit {
			t.Errorf("%s names %s, want its backup %s", c.ref, got, c.commit)
		}
		if got := run(t, dir, "show", c.ref+":a.go"); got != c.aGo {
			t.Errorf("%s keeps a.go as %q, want %q", c.ref, got, c.aGo)
		}
	}
	if got := run(t, dir, "show", backup+"-2:new.txt"); got != "untracked" {
		t.Errorf("the second backup keeps new.txt as %q", got)
	}
	if h := second.Hint(); !strings.Contains(h, "kept in "+backup+"-2: a.go new.txt") || !strings.Contains(h, "git restore --source="+backup+"-2 --worktree -- .") {
		t.Errorf("hint %q", h)
	}

	none, err := ws.RestoreKeeping(t.Context(), start, "", backup, "kept: nothing")
	if err != nil || none.Ref != "" || none.Hint() != "" {
		t.Errorf("a tree as agentloop left it: kept %+v, %v; want nothing", none, err)
	}
	if got := run(t, dir, "for-each-ref", "--format=%(refname)", "refs/agentloop/t/r/"); got != "refs/agentloop/t/r/iter-0\n"+backup+"\n"+backup+"-2" {
		t.Errorf("refs after three restores:\n%s", got)
	}
}

// TestRestoreKeepingRestoresNothingWhenTheBackupFails: when the tree that
// differs cannot be kept (here its ref cannot be written: a ref below it
// exists), the restore says so and leaves the work tree as it was.
func TestRestoreKeepingRestoresNothingWhenTheBackupFails(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.go": "a\n"})
	ws := &Workspace{Dir: dir}
	defer ws.Close()
	start, _, err := ws.Snapshot(t.Context(), "refs/agentloop/t/r/iter-0", "start")
	if err != nil {
		t.Fatal(err)
	}
	const backup = "refs/agentloop/t/r/kept"
	run(t, dir, "update-ref", backup+"/other", start) // kept is a folder of refs: it cannot be a ref too
	write(t, dir, map[string]string{"a.go": "the user's work\n", "new.txt": "also theirs\n"})
	before := tree(t, dir)
	kept, err := ws.RestoreKeeping(t.Context(), start, "", backup, "kept")
	if err == nil || !strings.Contains(err.Error(), "could not be kept, so nothing was restored") || kept.Ref != "" {
		t.Errorf("RestoreKeeping = %+v, %v; want the error that nothing was restored", kept, err)
	}
	if diff := cmp.Diff(before, tree(t, dir)); diff != "" {
		t.Errorf("the work tree changed though its backup failed (-before +after):\n%s", diff)
	}
}

// TestRestoreKeepingAgainstTheLastCheckpoint: the tree is compared with
// the checkpoint agentloop last left it at (expect), not the one it goes
// back to: an iteration's own work, checkpointed, is not kept; work beyond
// it is; a tree already at the commit restored to keeps nothing.
func TestRestoreKeepingAgainstTheLastCheckpoint(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.go": "a\n"})
	ws := &Workspace{Dir: dir}
	defer ws.Close()
	start, _, err := ws.Snapshot(t.Context(), "refs/agentloop/t/r/iter-0", "start")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"a.go": "the agent's\n"})
	iter1, _, err := ws.Snapshot(t.Context(), "refs/agentloop/t/r/iter-1", "iteration 1")
	if err != nil {
		t.Fatal(err)
	}
	if kept, err := ws.RestoreKeeping(t.Context(), start, iter1, "refs/agentloop/t/r/kept", "k"); err != nil || kept.Ref != "" {
		t.Errorf("the tree as the last checkpoint left it: kept %+v, %v; want nothing", kept, err)
	}
	if got := tree(t, dir)["a.go"]; got != "a\n" {
		t.Errorf("a.go after the restore = %q", got)
	}
	if kept, err := ws.RestoreKeeping(t.Context(), start, iter1, "refs/agentloop/t/r/kept", "k"); err != nil || kept.Ref != "" {
		t.Errorf("a tree at the commit restored to: kept %+v, %v; want nothing", kept, err)
	}
	write(t, dir, map[string]string{"b.go": "the user's\n"})
	kept, err := ws.RestoreKeeping(t.Context(), start, start, "refs/agentloop/t/r/kept", "k")
	if err != nil || kept.Ref != "refs/agentloop/t/r/kept" || !cmp.Equal(kept.Paths, []string{"b.go"}) {
		t.Errorf("work beyond the last checkpoint: kept %+v, %v; want b.go kept", kept, err)
	}
}
