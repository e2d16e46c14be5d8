package graph

import (
	"context"
	"errors"
	"testing"

	"github.com/agentloop/agentloop/internal/testenv"
)

// A graph interrupted as it starts (its context already cancelled) still
// sees its repository and the commit its tasks start from: it ends as
// interrupted, not as a folder outside git (exit 2); a folder outside git is
// still told as one.
func TestRepoFactsWhenCancelled(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "git")
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "start")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := CheckRepo(ctx, repo); err != nil {
		t.Errorf("CheckRepo, cancelled: %v; want the repository seen", err)
	}
	if base, err := Base(ctx, repo); err != nil || base == "" {
		t.Errorf("Base, cancelled = %q, %v; want HEAD's commit", base, err)
	}
	if err := CheckRepo(ctx, t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Errorf("CheckRepo outside git = %v, want ErrNotRepo", err)
	}
}
