package gitx

import (
	"context"
	"fmt"
	"strings"
)

// Restore makes the work tree at dir match the snapshot commit: files added since
// are removed, modified and deleted ones restored. HEAD, the branch and the index
// are left as they are, and ignored files and [StateDir] are never touched, so it
// rolls back what an agent did without disturbing the user's git state.
func Restore(ctx context.Context, dir, commit string) error {
	ix, err := newTempIndex(ctx, dir)
	if err != nil {
		return fmt.Errorf("restore %s: %w", dir, err)
	}
	defer ix.close()
	out, err := git(ctx, ix.top, "rev-parse", "-q", "--verify", "--end-of-options", commit+"^{tree}")
	if err != nil {
		return fmt.Errorf("restore %s: %q is not a snapshot in this repository: %w", dir, commit, err)
	}
	target := strings.TrimSpace(out)
	// The private index now describes the current tree exactly, so a hard
	// two-way read of the target updates just the files that differ and removes
	// those the target lacks; files the index does not list (ignored ones) stay.
	if _, err := ix.stage(ctx); err != nil {
		return fmt.Errorf("restore %s: stage the work tree: %w", dir, err)
	}
	if _, err := ix.git(ctx, nil, "read-tree", "--reset", "-u", target); err != nil {
		return fmt.Errorf("restore %s to %s: %w", dir, short(commit), err)
	}
	return nil
}

// short abbreviates an object name for messages.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
