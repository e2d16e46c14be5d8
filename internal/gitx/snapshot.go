package gitx

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/redact"
)

// Checkpoint is a snapshot of the work tree: a commit under a hidden ref and its tree.
// Equal trees mean equal code states, whatever edits led to them.
type Checkpoint struct {
	Commit string `json:"commit"`
	Tree   string `json:"tree"`
}

// fallbackIdent is who commits when git knows no user identity.
func fallbackIdent() []string {
	return []string{
		"GIT_AUTHOR_NAME=agentloop", "GIT_AUTHOR_EMAIL=agentloop@localhost",
		"GIT_COMMITTER_NAME=agentloop", "GIT_COMMITTER_EMAIL=agentloop@localhost",
	}
}

// IsRepo reports whether dir is inside a git work tree.
func IsRepo(ctx context.Context, dir string) bool {
	out, err := git(ctx, dir, "rev-parse", "--is-inside-work-tree")
	return err == nil && strings.TrimSpace(out) == "true"
}

// Snapshot records the whole work tree at dir (tracked and untracked files, not
// ignored ones, never [StateDir]) as a commit and points ref at it. It builds the
// commit in a private index, so the user's branch, HEAD and index stay as they
// are. The commit's parent is ref's previous commit when ref exists, else HEAD
// when the repository has commits. ref must be a full ref outside refs/heads/
// (for example refs/agentloop/NAME/RUN/iter-3).
func Snapshot(ctx context.Context, dir, ref, message string) (Checkpoint, error) {
	c := &checkpointer{dir: dir}
	defer c.close()
	return c.snapshot(ctx, ref, message)
}

// Tree returns the tree object of the current work tree at dir, as [Snapshot]
// would record it, without making a commit or moving any ref.
func Tree(ctx context.Context, dir string) (string, error) {
	c := &checkpointer{dir: dir}
	defer c.close()
	return c.tree(ctx)
}

// checkpointer takes the checkpoints of one work tree. It learns the repository
// and a private index once, and remembers the last checkpoint it took or
// restored, so that a run of iterations costs one staging pass of what changed
// per checkpoint and no commit when nothing did.
type checkpointer struct {
	dir     string
	repo    repo
	ix      *privateIndex
	ident   []string          // the fallback identity, once git could not name one
	cw      commitWriter      // writes the commits git would, once it learned how
	differ  treeDiffer        // the diffs between known trees
	pointed [2]string         // the ref last set, and its commit
	known   bool              // repo is set
	last    *Checkpoint       // the work tree as of the last snapshot or restore
	trees   map[string]string // commit → tree, for the commits this checkpointer made or restored
	redact  *redact.Redactor  // for the diffs handed on
}

// learn learns the repository, once.
func (c *checkpointer) learn(ctx context.Context) error {
	if c.known {
		return nil
	}
	r, err := openRepo(ctx, c.dir)
	if err != nil {
		return err
	}
	c.repo, c.known = r, true
	return nil
}

// open learns the repository and creates the private index, once.
func (c *checkpointer) open(ctx context.Context) error {
	if c.ix != nil {
		return nil
	}
	if err := c.learn(ctx); err != nil {
		return err
	}
	ix, err := openIndex(ctx, c.repo)
	if err != nil {
		return err
	}
	c.ix = ix
	return nil
}

// close removes the private index and ends the diff-tree process; the
// checkpointer opens a new one of each if used again.
func (c *checkpointer) close() {
	c.differ.close()
	if c.ix != nil {
		c.ix.close()
		c.ix = nil
	}
}

// tree stages the work tree and returns its tree object.
func (c *checkpointer) tree(ctx context.Context) (string, error) {
	if err := c.open(ctx); err != nil {
		return "", fmt.Errorf("hash the work tree %s: %w", c.dir, err)
	}
	tree, err := c.ix.stage(ctx)
	if err != nil {
		return "", fmt.Errorf("hash the work tree %s: %w", c.dir, err)
	}
	return tree, nil
}

// snapshot records the work tree under ref. When the tree is the one of the
// last checkpoint (or, before any, of HEAD), that commit is reused: no new
// commit for an iteration that changed nothing, nor for a run that starts from
// a clean work tree.
func (c *checkpointer) snapshot(ctx context.Context, ref, message string) (Checkpoint, error) {
	if err := checkHiddenRef(ref); err != nil {
		return Checkpoint{}, err
	}
	if err := c.open(ctx); err != nil {
		return Checkpoint{}, fmt.Errorf("snapshot %s: %w", c.dir, err)
	}
	tree, err := c.ix.stage(ctx)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("snapshot %s: stage the work tree: %w", c.dir, err)
	}
	same := c.last
	if same == nil && c.repo.head.Tree != "" {
		same = &c.repo.head
	}
	if same != nil && same.Tree == tree {
		if err := c.point(ctx, ref, same.Commit); err != nil {
			return Checkpoint{}, err
		}
		c.remember(*same)
		return *same, nil
	}
	var parents []string
	if parent := c.parent(ctx, ref); parent != "" {
		parents = append(parents, parent)
	}
	if strings.TrimSpace(message) == "" {
		message = "agentloop snapshot"
	}
	commit, err := c.commitTree(ctx, message, tree, parents...)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("snapshot %s: commit the tree: %w", c.dir, err)
	}
	cp := Checkpoint{Commit: commit, Tree: tree}
	if err := c.point(ctx, ref, cp.Commit); err != nil {
		return Checkpoint{}, err
	}
	c.remember(cp)
	return cp, nil
}

// commitTree makes the commit of tree with parents and message: written by
// the checkpointer's [commitWriter] once it learned from git how, else by git
// commit-tree. When git fails and can name no author or committer (no
// user.name/user.email configured), it commits again as the fallback identity,
// and keeps it: asking git first would cost two processes per session where
// the identity is almost always known.
func (c *checkpointer) commitTree(ctx context.Context, message, tree string, parents ...string) (string, error) {
	if commit, ok := c.cw.write(tree, parents, message); ok {
		return commit, nil
	}
	args := []string{"commit-tree", "--no-gpg-sign", tree, "-F", "-"}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	out, err := cmd{dir: c.repo.top, env: c.ident, stdin: strings.NewReader(message), args: args}.run(ctx)
	if err != nil && c.ident == nil {
		if ident := identityEnv(ctx, c.repo.top); ident != nil {
			c.ident = ident
			out, err = cmd{dir: c.repo.top, env: c.ident, stdin: strings.NewReader(message), args: args}.run(ctx)
		}
	}
	commit := strings.TrimSpace(out)
	if err == nil {
		c.cw.learn(c.repo.commonDir, c.repo.gitDir, commit)
	}
	return commit, err
}

// parent is the commit a new checkpoint under ref follows: the last checkpoint
// of this checkpointer, else ref's commit, else HEAD's, else none.
func (c *checkpointer) parent(ctx context.Context, ref string) string {
	if c.last != nil {
		return c.last.Commit
	}
	if p := c.refs().get(ctx, ref); p != "" {
		return p
	}
	return c.repo.head.Commit
}

// point sets ref to commit: a link to the file of the ref this checkpointer
// last pointed at commit, when there is one (an iteration's start is the last
// one's end), else a file of its own.
func (c *checkpointer) point(ctx context.Context, ref, commit string) error {
	if c.pointed[1] == commit && c.refs().link(c.pointed[0], ref, commit) {
		c.pointed = [2]string{ref, commit}
		return nil
	}
	if err := c.refs().set(ctx, ref, commit); err != nil {
		return fmt.Errorf("snapshot %s: %w", c.dir, err)
	}
	c.pointed = [2]string{ref, commit}
	return nil
}

func (c *checkpointer) refs() refStore {
	return refStore{top: c.repo.top, gitDir: c.repo.gitDir, common: c.repo.commonDir}
}

// remember makes cp the work tree's current checkpoint.
func (c *checkpointer) remember(cp Checkpoint) {
	if c.trees == nil {
		c.trees = map[string]string{}
	}
	c.trees[cp.Commit] = cp.Tree
	c.last = &cp
}

// checkHiddenRef refuses refs that would move a branch or are not full refs.
func checkHiddenRef(ref string) error {
	switch {
	case !strings.HasPrefix(ref, "refs/"):
		return fmt.Errorf("snapshot ref %q: want a full ref such as refs/agentloop/NAME/RUN/iter-1", ref)
	case strings.HasPrefix(ref, "refs/heads/"), strings.HasPrefix(ref, "refs/remotes/"), strings.HasPrefix(ref, "refs/tags/"):
		return fmt.Errorf("snapshot ref %q: refusing to write a branch, tag or remote ref; use refs/agentloop/…", ref)
	}
	return nil
}

// resolveCommit returns the commit rev names, or "" when it names none.
func resolveCommit(ctx context.Context, dir, rev string) string {
	out, err := git(ctx, dir, "rev-parse", "-q", "--verify", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// identityEnv returns the fallback identity when git cannot name the author or
// the committer (no user.name/user.email configured), else nothing.
func identityEnv(ctx context.Context, dir string) []string {
	for _, v := range []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"} {
		if _, err := git(ctx, dir, "var", v); err != nil {
			return fallbackIdent()
		}
	}
	return nil
}
