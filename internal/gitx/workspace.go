package gitx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
// the first step of the first checkpoint. Once it succeeded, it costs nothing.
func (w *Workspace) Open(ctx context.Context) error { return w.checkpointer().learn(ctx) }

// Top is the top folder of the work tree holding Dir, and CommonDir the git
// folder its repository's work trees share (where a lock every loop of the
// repository finds belongs), as [Workspace.Open] learned them ("" before).
func (w *Workspace) Top() string { return w.cp.repo.top }

// CommonDir: see [Workspace.Top].
func (w *Workspace) CommonDir() string { return w.cp.repo.commonDir }

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
	commit, tree, err = w.Snapshot(ctx, ref, message)
	if err == nil {
		c.differ.warm(c.repo.top) // the iteration's diff comes next
	}
	return commit, tree, err
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
	d := w.Diffs(ctx, from)[0]
	return d.Facts, d.Text, d.Err
}

// Diffed is one diff of [Workspace.Diffs]: what [Workspace.Diff] returns.
type Diffed struct {
	Facts evidence.DiffFacts
	Text  string // redacted
	Err   error
}

// Diffs is [Workspace.Diff] from each of froms (commits or refs), in one git
// process when the trees of all of them are known: checkpoints this workspace
// took or restored, a ref naming one (an iteration's diff and the run's since
// its start cost one process, not two).
func (w *Workspace) Diffs(ctx context.Context, froms ...string) []Diffed {
	out := make([]Diffed, len(froms))
	c := w.checkpointer()
	var tree string
	if c.last != nil {
		tree = c.last.Tree
	} else {
		t, err := c.tree(ctx)
		if err != nil {
			for i := range out {
				out[i].Err = err
			}
			return out
		}
		tree = t
	}
	texts, errs := c.diffs(ctx, froms, tree)
	for i, text := range texts {
		if errs[i] != nil && !errors.Is(errs[i], ErrTruncated) {
			out[i] = Diffed{Facts: evidence.DiffFacts{TreeHash: tree}, Err: errs[i]}
			continue
		}
		// The facts (a secret added, among them) are read from the diff as it is;
		// the text handed on, for files, reports and the reviewer, is redacted.
		var facts evidence.DiffFacts
		if w.Analyze != nil {
			facts = w.Analyze(text)
		}
		facts.TreeHash = tree
		out[i] = Diffed{Facts: facts, Text: w.redactor().String(text), Err: errs[i]}
	}
	return out
}

// diffs returns the unified diffs from each of froms to tree: none for a from
// whose tree is tree, from the checkpointer's one git diff-tree for all of
// them when their trees are known ([treeDiffer]), else a git diff each.
func (c *checkpointer) diffs(ctx context.Context, froms []string, tree string) ([]string, []error) {
	texts, errs := make([]string, len(froms)), make([]error, len(froms))
	fromTrees := make([]string, len(froms))
	var todo []int // the froms whose diff git makes
	known := true
	for i, from := range froms {
		ft := c.knownTree(ctx, from)
		if ft == tree {
			continue
		}
		fromTrees[i] = ft
		known = known && ft != ""
		todo = append(todo, i)
	}
	if len(todo) > 0 && known {
		var trees []string
		for _, i := range todo {
			trees = append(trees, fromTrees[i])
		}
		if byTree, err := c.differ.diffs(ctx, c.repo.top, trees, tree); err == nil {
			for _, i := range todo {
				texts[i] = byTree[fromTrees[i]]
			}
			return texts, errs
		}
		// Cut for size, or failed: each on its own, which says which.
	}
	for _, i := range todo {
		texts[i], errs[i] = diffTrees(ctx, c.repo.top, froms[i], tree)
	}
	return texts, errs
}

// knownTree is the tree of from when this checkpointer knows it without git:
// a commit it made or restored, or a ref naming one; else "".
func (c *checkpointer) knownTree(ctx context.Context, from string) string {
	if t, ok := c.trees[from]; ok {
		return t
	}
	if strings.HasPrefix(from, "refs/") {
		if commit, ok := c.refs().resolve(from); ok {
			return c.trees[commit]
		}
	}
	return ""
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

// Controls are the files of the git folder dir that make git run programs
// of their own: its hooks folder, and its configuration files (config and
// config.worktree: core.hooksPath, core.fsmonitor, filters, aliases). A
// sandbox keeps them read-only, since git runs what they name outside it.
func Controls(dir string) (hooks string, configs []string) {
	return filepath.Join(dir, "hooks"), []string{filepath.Join(dir, "config"), filepath.Join(dir, "config.worktree")}
}
