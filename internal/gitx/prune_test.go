package gitx

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBranchesWorktreesAndRefsArePruned(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	repo := newRepo(t, map[string]string{"a.txt": "a\n"})
	merged, open := filepath.Join(t.TempDir(), "merged"), filepath.Join(t.TempDir(), "open")
	for wt, br := range map[string]string{merged: "agentloop/g/merged", open: "agentloop/g/open"} {
		if err := AddWorktree(ctx, repo, wt, br, ""); err != nil {
			t.Fatal(err)
		}
		write(t, wt, map[string]string{filepath.Base(wt) + ".txt": "x\n"})
		run(t, wt, "add", "-A")
		run(t, wt, "commit", "-q", "-m", filepath.Base(wt))
	}
	if _, _, err := Merge(ctx, repo, "agentloop/g/merged"); err != nil {
		t.Fatal(err)
	}

	wts, err := Worktrees(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	var branches []string
	for _, w := range wts[1:] {
		branches = append(branches, w.Branch)
	}
	slices.Sort(branches)
	if diff := cmp.Diff([]string{"agentloop/g/merged", "agentloop/g/open"}, branches); diff != "" || len(wts) != 3 {
		t.Errorf("Worktrees = %+v (-want +got branches):\n%s", wts, diff)
	}
	if got, err := Branches(ctx, repo, "agentloop/"); err != nil || !slices.Equal(got, []string{"agentloop/g/merged", "agentloop/g/open"}) {
		t.Errorf("Branches = %v, %v", got, err)
	}

	for _, wt := range []string{merged, open} {
		if err := RemoveWorktree(ctx, repo, wt, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := DeleteMergedBranch(ctx, repo, "agentloop/g/merged"); err != nil {
		t.Errorf("delete a merged branch: %v", err)
	}
	// A branch with work found nowhere else is refused, not lost.
	if err := DeleteMergedBranch(ctx, repo, "agentloop/g/open"); err == nil {
		t.Error("an unmerged branch was deleted by DeleteMergedBranch")
	}
	if err := DeleteMergedBranch(ctx, repo, "agentloop/g/gone"); err != nil {
		t.Errorf("a missing branch: %v", err)
	}
	if err := DeleteBranch(ctx, repo, "agentloop/g/open"); err != nil {
		t.Errorf("DeleteBranch: %v", err)
	}
	if got, _ := Branches(ctx, repo, "agentloop/"); len(got) != 0 {
		t.Errorf("branches left: %v", got)
	}

	run(t, repo, "update-ref", "refs/agentloop/build/r1/iter-1", "HEAD")
	run(t, repo, "update-ref", "refs/agentloop/build/r2/iter-1", "HEAD")
	refs, err := Refs(ctx, repo, "refs/agentloop/")
	if err != nil || len(refs) != 2 {
		t.Fatalf("Refs = %v, %v", refs, err)
	}
	if err := DeleteRefs(ctx, repo, refs[:1]); err != nil {
		t.Fatal(err)
	}
	if got, _ := Refs(ctx, repo, "refs/agentloop/"); !slices.Equal(got, refs[1:]) {
		t.Errorf("refs left %v, want %v", got, refs[1:])
	}
	if err := DeleteRefs(ctx, repo, []string{"refs/heads/main"}); err == nil {
		t.Error("DeleteRefs deleted a branch")
	}
}
