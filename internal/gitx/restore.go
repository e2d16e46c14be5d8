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
	c := &checkpointer{dir: dir}
	defer c.close()
	return c.restore(ctx, commit)
}

// restore rolls the work tree back to commit, which becomes the last checkpoint.
func (c *checkpointer) restore(ctx context.Context, commit string) error {
	if err := c.open(ctx); err != nil {
		return fmt.Errorf("restore %s: %w", c.dir, err)
	}
	target, ok := c.trees[commit]
	if !ok {
		if strings.HasPrefix(commit, "-") {
			return fmt.Errorf("restore %s: %q is not a snapshot", c.dir, commit)
		}
		out, err := git(ctx, c.repo.top, "rev-parse", "--revs-only", commit+"^{commit}", commit+"^{tree}")
		lines := strings.Fields(out)
		if err != nil || len(lines) != 2 {
			if err == nil {
				err = fmt.Errorf("git rev-parse printed %q", out)
			}
			return fmt.Errorf("restore %s: %q is not a snapshot in this repository: %w", c.dir, commit, err)
		}
		commit, target = lines[0], lines[1]
	}
	// The private index now describes the current tree exactly, so a hard
	// two-way read of the target updates just the files that differ and removes
	// those the target lacks; files the index does not list (ignored ones) stay.
	if _, err := c.ix.stage(ctx); err != nil {
		return fmt.Errorf("restore %s: stage the work tree: %w", c.dir, err)
	}
	if _, err := c.ix.git(ctx, nil, "read-tree", "--reset", "-u", target); err != nil {
		c.last = nil // the tree is in between: the next snapshot must not reuse anything
		return fmt.Errorf("restore %s to %s: %w", c.dir, short(commit), err)
	}
	c.remember(Checkpoint{Commit: commit, Tree: target})
	return nil
}

// short abbreviates an object name for messages.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
