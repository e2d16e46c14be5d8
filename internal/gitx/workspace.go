package gitx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/redact"
)

// Workspace is a git work tree as the loop's engine uses it: a checkpoint per
// iteration, roll-back, the facts of what an iteration changed, and the opt-in
// commit and push afterwards. Its methods fit engine.Workspace.
//
// A Workspace keeps what it learns between calls: the repository, a private
// index whose stat cache makes each checkpoint re-hash only what changed, and
// the last checkpoint, which is where the next iteration starts ([Workspace.Start])
// and what an iteration's diff is taken against. [Workspace.Close] removes the
// private index.
type Workspace struct {
	Dir string
	// Analyze reads the facts of a diff (scope, protected paths, tests, a
	// secret added) from its unredacted text; nil reads none but the tree.
	Analyze func(patch string) evidence.DiffFacts
	Commit  bool   // commit each iteration's changes on the current branch
	Push    bool   // push the current branch after each iteration
	Remote  string // where to push; "" means the upstream's remote, else origin

	cp checkpointer
}

func (w *Workspace) checkpointer() *checkpointer {
	w.cp.dir = w.Dir
	return &w.cp
}

// Open learns the repository holding Dir, with one git process, and fails when
// Dir is not in a git work tree: it is both the check whether there is one and
// the first step of the first checkpoint.
func (w *Workspace) Open(ctx context.Context) error { return w.checkpointer().learn(ctx) }

// Snapshot records the work tree under ref; see [Snapshot].
func (w *Workspace) Snapshot(ctx context.Context, ref, message string) (commit, tree string, err error) {
	cp, err := w.checkpointer().snapshot(ctx, ref, message)
	return cp.Commit, cp.Tree, err
}

// Start returns the checkpoint an iteration starts from. The end of one
// iteration is the start of the next: after a [Workspace.Snapshot] or a
// [Workspace.Restore] in this process, that checkpoint is returned without
// looking at the tree again (what else changes the tree between two iterations,
// in the milliseconds between them, counts as the next iteration's change).
// Otherwise — the first iteration of a session — it snapshots the tree under ref.
func (w *Workspace) Start(ctx context.Context, ref, message string) (commit, tree string, err error) {
	c := w.checkpointer()
	if c.last != nil {
		// Each attempt keeps a ref to where it started, even one that starts
		// from the last checkpoint (a loose ref file: no git process).
		if err := c.point(ctx, ref, c.last.Commit); err != nil {
			return "", "", err
		}
		return c.last.Commit, c.last.Tree, nil
	}
	return w.Snapshot(ctx, ref, message)
}

// Restore rolls the work tree back to a checkpoint; see [Restore].
func (w *Workspace) Restore(ctx context.Context, commit string) error {
	return w.checkpointer().restore(ctx, commit)
}

// Diff returns the facts and the unified diff from the checkpoint from to the
// work tree as of the last checkpoint (or, before any, as it is now), TreeHash
// included. Two checkpoints with the same tree give an empty diff without
// running git. A diff cut for size still gives facts (of the part kept) along
// with an error wrapping [ErrTruncated].
func (w *Workspace) Diff(ctx context.Context, from string) (evidence.DiffFacts, string, error) {
	c := w.checkpointer()
	var tree string
	if c.last != nil {
		tree = c.last.Tree
	} else {
		t, err := c.tree(ctx)
		if err != nil {
			return evidence.DiffFacts{}, "", err
		}
		tree = t
	}
	var text string
	var err error
	if c.trees[from] != tree {
		text, err = diffTrees(ctx, c.repo.top, from, tree)
		if err != nil && !errors.Is(err, ErrTruncated) {
			return evidence.DiffFacts{TreeHash: tree}, "", err
		}
	}
	// The facts (a secret added, among them) are read from the diff as it is;
	// the text handed on, for files, reports and the reviewer, is redacted.
	var facts evidence.DiffFacts
	if w.Analyze != nil {
		facts = w.Analyze(text)
	}
	facts.TreeHash = tree
	return facts, w.redactor().String(text), err
}

func (w *Workspace) redactor() *redact.Redactor {
	if w.cp.redact == nil {
		w.cp.redact = redact.New(os.Environ())
	}
	return w.cp.redact
}

// Close removes the private index. The Workspace can still be used: it makes a
// new one.
func (w *Workspace) Close() { w.checkpointer().close() }

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

// Dirs returns the folders of the git work tree holding dir that whoever
// works in it writes: its top folder, and its git folders (a linked
// worktree's own and the one it shares) where they lie outside it.
func Dirs(ctx context.Context, dir string) ([]string, error) {
	r, err := openRepo(ctx, dir)
	if err != nil {
		return nil, err
	}
	out := []string{r.top}
	for _, d := range []string{r.gitDir, r.commonDir} {
		if d != r.top && !strings.HasPrefix(d, r.top+string(os.PathSeparator)) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out, nil
}
