package engine

import (
	"context"
	"errors"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gitx"
)

// GitWorkspace is a [Workspace] on a git work tree: snapshots are commits under
// hidden refs made through a private index, so the user's branch, HEAD and index
// never move.
type GitWorkspace struct {
	Dir     string
	Analyze func(unified string) evidence.DiffFacts // the diff detectors, configured
	Commit  bool                                    // commit each iteration on the current branch
	Push    bool                                    // push after each iteration
	Remote  string
}

// Snapshot implements [Workspace].
func (g *GitWorkspace) Snapshot(ctx context.Context, ref, message string) (string, string, error) {
	c, err := gitx.Snapshot(ctx, g.Dir, ref, message)
	return c.Commit, c.Tree, err
}

// Restore implements [Workspace].
func (g *GitWorkspace) Restore(ctx context.Context, commit string) error {
	return gitx.Restore(ctx, g.Dir, commit)
}

// Diff implements [Workspace].
func (g *GitWorkspace) Diff(ctx context.Context, from string) (evidence.DiffFacts, string, error) {
	unified, err := gitx.Diff(ctx, g.Dir, from, "")
	if err != nil {
		return evidence.DiffFacts{}, "", err
	}
	if g.Analyze == nil {
		return evidence.DiffFacts{}, unified, nil
	}
	return g.Analyze(unified), unified, nil
}

// AfterIteration implements [Workspace]: the opt-in commit and push. A failure
// is returned for the caller to show as a warning.
func (g *GitWorkspace) AfterIteration(ctx context.Context, iteration int, message string) error {
	var errs []error
	if g.Commit {
		if err := gitx.Commit(ctx, g.Dir, message); err != nil {
			errs = append(errs, err)
		}
	}
	if g.Push {
		if err := gitx.Push(ctx, g.Dir, g.Remote); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
