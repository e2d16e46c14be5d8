package gitx

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/diff"
	"github.com/agentloop/agentloop/internal/evidence"
)

func TestWorkspaceIteration(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"calc.go": "package calc\n", "calc_test.go": "package calc\n\nfunc TestX(t *testing.T) {\n\tt.Fatal(1)\n}\n"})
	remote := filepath.Join(t.TempDir(), "r.git")
	run(t, dir, "init", "-q", "--bare", remote)
	run(t, dir, "remote", "add", "origin", remote)
	w := &Workspace{Dir: dir, Analyze: func(t string) evidence.DiffFacts {
		return diff.Analyze(t, diff.Options{ProtectedPaths: []string{"auth/**"}})
	}, Commit: true, Push: true}

	before, _, err := w.Snapshot(t.Context(), "refs/agentloop/n/r/iter-1-start", "start")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"auth/token.go": "package auth\n", "calc_test.go": "package calc\n\nfunc TestX(t *testing.T) {\n\tt.Skip()\n}\n"})
	commit, treeHash, err := w.Snapshot(t.Context(), "refs/agentloop/n/r/iter-1", "end")
	if err != nil {
		t.Fatal(err)
	}
	facts, text, err := w.Diff(t.Context(), before)
	if err != nil || text == "" {
		t.Fatalf("Diff = %q, %v", text, err)
	}
	if facts.TreeHash != treeHash || facts.SkipsAdded != 1 || facts.AssertsRemoved != 1 {
		t.Errorf("facts = %+v, want tree %s, 1 skip, 1 assert", facts, treeHash)
	}
	if diff := cmp.Diff([]string{"auth/token.go"}, facts.ProtectedTouched); diff != "" {
		t.Errorf("ProtectedTouched (-want +got):\n%s", diff)
	}
	if err := w.AfterIteration(t.Context(), 1, "agentloop: n iteration 1"); err != nil {
		t.Fatal(err)
	}
	if got := run(t, remote, "log", "-1", "--format=%s", "main"); got != "agentloop: n iteration 1" {
		t.Errorf("pushed commit = %q", got)
	}
	// Roll back: the work tree matches the start checkpoint, the commit stays.
	if err := w.Restore(t.Context(), before); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, dir)["calc_test.go"]; got != "package calc\n\nfunc TestX(t *testing.T) {\n\tt.Fatal(1)\n}\n" {
		t.Errorf("calc_test.go after Restore = %q", got)
	}
	if got := run(t, dir, "rev-parse", "refs/agentloop/n/r/iter-1"); got != commit {
		t.Errorf("checkpoint ref = %s, want %s", got, commit)
	}
}
