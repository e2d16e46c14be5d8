package gitx

import (
	"context"
	"fmt"
	"strings"
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
// commit in a temporary index, so the user's branch, HEAD and index stay as they
// are. The commit's parent is ref's previous commit when ref exists, else HEAD
// when the repository has commits. ref must be a full ref outside refs/heads/
// (for example refs/agentloop/NAME/RUN/iter-3).
func Snapshot(ctx context.Context, dir, ref, message string) (Checkpoint, error) {
	if err := checkHiddenRef(ref); err != nil {
		return Checkpoint{}, err
	}
	ix, err := newTempIndex(ctx, dir)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("snapshot %s: %w", dir, err)
	}
	defer ix.close()
	tree, err := ix.stage(ctx)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("snapshot %s: stage the work tree: %w", dir, err)
	}
	args := []string{"commit-tree", "--no-gpg-sign", tree, "-F", "-"}
	if parent := resolveCommit(ctx, ix.top, ref); parent != "" {
		args = append(args, "-p", parent)
	} else if head := resolveCommit(ctx, ix.top, "HEAD"); head != "" {
		args = append(args, "-p", head)
	}
	if strings.TrimSpace(message) == "" {
		message = "agentloop snapshot"
	}
	out, err := cmd{dir: ix.top, env: identityEnv(ctx, ix.top), stdin: strings.NewReader(message), args: args}.run(ctx)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("snapshot %s: commit the tree: %w", dir, err)
	}
	commit := strings.TrimSpace(out)
	if _, err := git(ctx, ix.top, "update-ref", "-m", "agentloop snapshot", ref, commit); err != nil {
		return Checkpoint{}, fmt.Errorf("snapshot %s: point %s at the commit: %w", dir, ref, err)
	}
	return Checkpoint{Commit: commit, Tree: tree}, nil
}

// Tree returns the tree object of the current work tree at dir, as [Snapshot]
// would record it, without making a commit or moving any ref.
func Tree(ctx context.Context, dir string) (string, error) {
	ix, err := newTempIndex(ctx, dir)
	if err != nil {
		return "", fmt.Errorf("hash the work tree %s: %w", dir, err)
	}
	defer ix.close()
	tree, err := ix.stage(ctx)
	if err != nil {
		return "", fmt.Errorf("hash the work tree %s: %w", dir, err)
	}
	return tree, nil
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
