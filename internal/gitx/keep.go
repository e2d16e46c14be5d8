package gitx

import (
	"context"
	"fmt"
	"strings"
)

// Kept is what a restore kept of the work tree it replaced: the commit of the
// tree as it was, the ref naming it, and the paths where it differed from what
// agentloop had last recorded (sorted, at most maxKeptPaths of them; More
// counts the rest). The zero Kept means nothing needed keeping.
type Kept struct {
	Ref    string
	Commit string
	Paths  []string
	More   int
}

// maxKeptPaths bounds the paths a [Kept] names.
const maxKeptPaths = 20

// RestoreKeeping rolls the work tree back to commit like [Workspace.Restore],
// but first keeps whatever the tree holds beyond expect — the checkpoint
// agentloop last left it at ("" for commit itself) — untracked files included,
// ignored files and the state folder left out: a commit of the tree as it is,
// under backupRef (or, when that exists, backupRef-2, -3, …). Nothing is
// restored when that commit cannot be made.
func (w *Workspace) RestoreKeeping(ctx context.Context, commit, expect, backupRef, message string) (Kept, error) {
	c := w.checkpointer()
	if err := checkHiddenRef(backupRef); err != nil {
		return Kept{}, err
	}
	if err := c.open(ctx); err != nil {
		return Kept{}, fmt.Errorf("restore %s: %w", c.dir, err)
	}
	cur, err := c.ix.stage(ctx)
	if err != nil {
		return Kept{}, fmt.Errorf("restore %s: stage the work tree: %w", c.dir, err)
	}
	if expect == "" {
		expect = commit
	}
	expTree, err := c.treeOf(ctx, expect)
	if err != nil {
		return Kept{}, fmt.Errorf("restore %s: %w", c.dir, err)
	}
	var kept Kept
	if cur != expTree {
		if target, err := c.treeOf(ctx, commit); err != nil || cur != target {
			kept, err = c.keep(ctx, cur, expect, expTree, backupRef, message)
			if err != nil {
				return Kept{}, fmt.Errorf("restore %s: the work tree differs from agentloop's last checkpoint %s and could not be kept, so nothing was restored: %w", c.dir, short(expect), err)
			}
		}
	}
	return kept, c.restore(ctx, commit)
}

// keep commits tree (the work tree as it is), its parent expect, under a free
// name from ref, and lists where it differs from expTree.
func (c *checkpointer) keep(ctx context.Context, tree, expect, expTree, ref, message string) (Kept, error) {
	commit, err := c.commitTree(ctx, message, tree, expect)
	if err != nil {
		return Kept{}, fmt.Errorf("commit the tree: %w", err)
	}
	name := ref
	for i := 2; c.refs().get(ctx, name) != ""; i++ {
		name = fmt.Sprintf("%s-%d", ref, i)
	}
	if err := c.point(ctx, name, commit); err != nil {
		return Kept{}, err
	}
	c.trees[commit] = tree
	out, err := git(ctx, c.repo.top, "diff-tree", "-r", "--name-only", "--no-renames", "-z", expTree, tree)
	if err != nil {
		return Kept{}, fmt.Errorf("list what differs: %w", err)
	}
	k := Kept{Ref: name, Commit: commit}
	for _, p := range strings.Split(strings.TrimRight(out, "\x00"), "\x00") {
		switch {
		case p == "":
		case len(k.Paths) < maxKeptPaths:
			k.Paths = append(k.Paths, p)
		default:
			k.More++
		}
	}
	return k, nil
}

// treeOf is the tree of a commit this checkpointer knows, else git's answer.
func (c *checkpointer) treeOf(ctx context.Context, commit string) (string, error) {
	if t, ok := c.trees[commit]; ok {
		return t, nil
	}
	if strings.HasPrefix(commit, "-") {
		return "", fmt.Errorf("%q is not a snapshot", commit)
	}
	out, err := git(ctx, c.repo.top, "rev-parse", "--verify", "--end-of-options", commit+"^{tree}")
	if err != nil {
		return "", fmt.Errorf("%q is not a snapshot in this repository: %w", commit, err)
	}
	t := strings.TrimSpace(out)
	if c.trees == nil {
		c.trees = map[string]string{}
	}
	c.trees[commit] = t
	return t, nil
}

// Hint is the line a person reads about what a restore kept: where, and the
// command that brings it back.
func (k Kept) Hint() string {
	if k.Ref == "" {
		return ""
	}
	paths := strings.Join(k.Paths, " ")
	if k.More > 0 {
		paths += fmt.Sprintf(" (and %d more)", k.More)
	}
	return fmt.Sprintf("kept in %s: %s; bring it back with: git restore --source=%s --worktree -- .", k.Ref, paths, k.Ref)
}

// Changed lists the paths where the work tree as it is now (untracked files
// included, ignored ones and the state folder left out) differs from the
// checkpoint since, sorted: what changed there since agentloop recorded it.
func (w *Workspace) Changed(ctx context.Context, since string) ([]string, error) {
	c := w.checkpointer()
	cur, err := c.tree(ctx)
	if err != nil {
		return nil, err
	}
	was, err := c.treeOf(ctx, since)
	if err != nil {
		return nil, fmt.Errorf("compare the work tree %s: %w", c.dir, err)
	}
	if cur == was {
		return nil, nil
	}
	out, err := git(ctx, c.repo.top, "diff-tree", "-r", "--name-only", "--no-renames", "-z", was, cur)
	if err != nil {
		return nil, fmt.Errorf("compare the work tree %s with %s: %w", c.dir, short(since), err)
	}
	var paths []string
	for _, p := range strings.Split(strings.TrimRight(out, "\x00"), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}
