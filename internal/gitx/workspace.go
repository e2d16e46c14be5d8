package gitx

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentloop/agentloop/internal/diff"
	"github.com/agentloop/agentloop/internal/evidence"
)

// Workspace is a git work tree as the loop's engine uses it: a checkpoint per
// iteration, roll-back, the facts of what an iteration changed, and the opt-in
// commit and push afterwards. Its methods fit engine.Workspace.
type Workspace struct {
	Dir      string
	Analysis diff.Options // what diff facts are checked against (scope, protected paths, test globs)
	Commit   bool         // commit each iteration's changes on the current branch
	Push     bool         // push the current branch after each iteration
	Remote   string       // where to push; "" means the upstream's remote, else origin
}

// Snapshot records the work tree under ref; see [Snapshot].
func (w *Workspace) Snapshot(ctx context.Context, ref, message string) (commit, tree string, err error) {
	cp, err := Snapshot(ctx, w.Dir, ref, message)
	return cp.Commit, cp.Tree, err
}

// Restore rolls the work tree back to a checkpoint; see [Restore].
func (w *Workspace) Restore(ctx context.Context, commit string) error {
	return Restore(ctx, w.Dir, commit)
}

// Diff returns the facts and the unified diff from the checkpoint from to the
// current work tree, TreeHash included. A diff cut for size still gives facts
// (of the part kept) along with an error wrapping [ErrTruncated].
func (w *Workspace) Diff(ctx context.Context, from string) (evidence.DiffFacts, string, error) {
	tree, err := Tree(ctx, w.Dir)
	if err != nil {
		return evidence.DiffFacts{}, "", err
	}
	text, err := Diff(ctx, w.Dir, from, tree)
	if err != nil && !errors.Is(err, ErrTruncated) {
		return evidence.DiffFacts{TreeHash: tree}, "", err
	}
	facts := diff.Analyze(text, w.Analysis)
	facts.TreeHash = tree
	return facts, text, err
}

// AfterIteration commits and pushes as configured. Its error is a warning for
// the caller to show: the loop goes on.
func (w *Workspace) AfterIteration(ctx context.Context, iteration int, message string) error {
	if w.Commit {
		if err := Commit(ctx, w.Dir, message); err != nil {
			return fmt.Errorf("iteration %d: %w", iteration, err)
		}
	}
	if w.Push {
		if err := Push(ctx, w.Dir, w.Remote); err != nil {
			return fmt.Errorf("iteration %d: %w", iteration, err)
		}
	}
	return nil
}
