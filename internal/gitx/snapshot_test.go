package gitx

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func lsTree(t *testing.T, dir, rev string) []string {
	t.Helper()
	out := run(t, dir, "ls-tree", "-r", "--name-only", rev)
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

func TestSnapshotRecordsWholeTreeWithoutMovingAnything(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{".gitignore": "build/\n*.log\n", "a.go": "package a\n", "b.go": "package b\n"})
	head := run(t, dir, "rev-parse", "HEAD")
	write(t, dir, map[string]string{
		"a.go":                  "package a // changed\n",
		"staged.go":             "package staged\n",
		"new/dir/c.go":          "package c\n",
		"build/out.bin":         "ignored",
		"run.log":               "ignored",
		".agentloop/state.json": "{}",
	})
	run(t, dir, "add", "staged.go")
	run(t, dir, "rm", "-q", "b.go")
	before := gitState(t, dir)

	cp, err := Snapshot(t.Context(), dir, "refs/agentloop/build/r1/iter-1", "iteration 1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, gitState(t, dir)); diff != "" {
		t.Errorf("Snapshot moved HEAD, the branch or the index (-before +after):\n%s", diff)
	}
	want := []string{".gitignore", "a.go", "new/dir/c.go", "staged.go"}
	if diff := cmp.Diff(want, lsTree(t, dir, cp.Commit)); diff != "" {
		t.Errorf("snapshot files (-want +got):\n%s", diff)
	}
	if got := run(t, dir, "show", cp.Commit+":a.go"); got != "package a // changed" {
		t.Errorf("a.go in snapshot = %q", got)
	}
	if got := run(t, dir, "rev-parse", "refs/agentloop/build/r1/iter-1"); got != cp.Commit {
		t.Errorf("ref = %s, want %s", got, cp.Commit)
	}
	if got := run(t, dir, "rev-parse", cp.Commit+"^{tree}"); got != cp.Tree {
		t.Errorf("tree = %s, want %s", got, cp.Tree)
	}
	if got := run(t, dir, "rev-parse", cp.Commit+"^"); got != head {
		t.Errorf("parent = %s, want HEAD %s", got, head)
	}
	if got := run(t, dir, "log", "-1", "--format=%s%n%an", cp.Commit); got != "iteration 1\nTester" {
		t.Errorf("message and author = %q", got)
	}
	if got := run(t, dir, "branch", "--list"); got != "* main" {
		t.Errorf("branches = %q", got)
	}
}

func TestSnapshotInRepoWithoutCommitsAndWithoutIdentity(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	write(t, dir, map[string]string{"main.go": "package main\n"})

	cp, err := Snapshot(t.Context(), dir, "refs/agentloop/x/r/iter-1", "first")
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "log", "-1", "--format=%an <%ae>|%P", cp.Commit); got != "agentloop <agentloop@localhost>|" {
		t.Errorf("author|parents = %q, want the fallback identity and no parent", got)
	}
	if _, err := git(t.Context(), dir, "rev-parse", "-q", "--verify", "HEAD"); err == nil {
		t.Error("Snapshot created HEAD in an empty repository")
	}
	if got := run(t, dir, "ls-files"); got != "" {
		t.Errorf("index = %q, want empty", got)
	}
	// A second snapshot on the same ref chains onto the first.
	write(t, dir, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	cp2, err := Snapshot(t.Context(), dir, "refs/agentloop/x/r/iter-1", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "rev-parse", cp2.Commit+"^"); got != cp.Commit {
		t.Errorf("second snapshot parent = %s, want %s", got, cp.Commit)
	}
	if cp2.Tree == cp.Tree {
		t.Error("different contents gave the same tree")
	}
}

func TestSnapshotSameContentSameTree(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.txt": "one\n"})
	cp1, err := Snapshot(t.Context(), dir, "refs/agentloop/t/r/iter-1", "1")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"a.txt": "two\n"})
	cp2, err := Snapshot(t.Context(), dir, "refs/agentloop/t/r/iter-2", "2")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"a.txt": "one\n"})
	cp3, err := Snapshot(t.Context(), dir, "refs/agentloop/t/r/iter-3", "3")
	if err != nil {
		t.Fatal(err)
	}
	if cp1.Tree != cp3.Tree || cp1.Tree == cp2.Tree {
		t.Errorf("trees %s %s %s: want A-B-A", cp1.Tree, cp2.Tree, cp3.Tree)
	}
	tr, err := Tree(t.Context(), dir)
	if err != nil || tr != cp3.Tree {
		t.Errorf("Tree() = %s, %v; want %s", tr, err, cp3.Tree)
	}
}

func TestSnapshotRefusesBranchesAndShortRefs(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a": "a"})
	for _, ref := range []string{"refs/heads/main", "refs/tags/v1", "HEAD", "iter-1", "refs/remotes/origin/main"} {
		if _, err := Snapshot(t.Context(), dir, ref, "x"); err == nil {
			t.Errorf("Snapshot(%q) succeeded, want an error", ref)
		}
	}
	if got := run(t, dir, "for-each-ref", "--format=%(refname)"); got != "refs/heads/main" {
		t.Errorf("refs = %q", got)
	}
}

func TestSnapshotOutsideRepository(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	if IsRepo(t.Context(), dir) {
		t.Error("IsRepo(temp dir) = true")
	}
	_, err := Snapshot(t.Context(), dir, "refs/agentloop/a/b/c", "x")
	if _, ok := errors.AsType[*Error](err); !ok {
		t.Fatalf("Snapshot outside a repository: err = %v, want a *gitx.Error", err)
	}
	if !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("error %q does not carry git's stderr", err)
	}
	if !IsRepo(t.Context(), newRepo(t, nil)) {
		t.Error("IsRepo(new repo) = false")
	}
}
