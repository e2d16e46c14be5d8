package gitx

import (
	"errors"
	"testing"
)

// TestShareBranchOver: a push on the condition that the remote's branch is
// where it was read goes when it is, and replaces nothing someone pushed
// since: it fails with ErrBranchMoved and the remote keeps their commit.
func TestShareBranchOver(t *testing.T) {
	ctx := t.Context()
	a, b := sharedClones(t)
	run(t, a, "checkout", "-q", "-b", "feature")
	write(t, a, map[string]string{"mine.txt": "1\n"})
	run(t, a, "add", "-A")
	run(t, a, "commit", "-q", "-m", "mine")
	if err := ShareBranchOver(ctx, a, "origin", "feature", ""); err != nil {
		t.Fatalf("a first push, no branch there: %v", err)
	}
	seen := run(t, a, "rev-parse", "feature")
	// Someone pushes to it from another clone.
	run(t, b, "fetch", "-q", "origin", "feature:feature")
	run(t, b, "checkout", "-q", "feature")
	write(t, b, map[string]string{"theirs.txt": "1\n"})
	run(t, b, "add", "-A")
	run(t, b, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "theirs")
	run(t, b, "push", "-q", "origin", "feature")
	theirs := run(t, b, "rev-parse", "HEAD")
	write(t, a, map[string]string{"mine.txt": "2\n"})
	run(t, a, "commit", "-q", "-am", "mine again")
	err := ShareBranchOver(ctx, a, "origin", "feature", seen)
	if !errors.Is(err, ErrBranchMoved) {
		t.Fatalf("a push over their commit: %v, want ErrBranchMoved", err)
	}
	remote := run(t, a, "remote", "get-url", "origin")
	if got := run(t, remote, "rev-parse", "refs/heads/feature"); got != theirs {
		t.Errorf("the remote's branch is at %s, want their %s", got, theirs)
	}
	if err := ShareBranchOver(ctx, a, "origin", "feature", theirs); err != nil {
		t.Errorf("a push over the branch as it is now: %v", err)
	}
}
