package gitx

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// DeleteMergedBranch deletes branch when it is merged into the current branch of
// repo (git branch -d): a branch holding work found nowhere else is refused, not
// lost. A branch that does not exist is no error.
func DeleteMergedBranch(ctx context.Context, repo, branch string) error {
	if strings.HasPrefix(branch, "-") {
		return fmt.Errorf("delete branch: invalid branch %q", branch)
	}
	if resolveCommit(ctx, repo, "refs/heads/"+branch) == "" {
		return nil
	}
	if _, err := git(ctx, repo, "branch", "-d", "--", branch); err != nil {
		return fmt.Errorf("delete branch %s: %w", branch, err)
	}
	return nil
}

// DeleteBranch deletes branch whether it is merged or not (git branch -D). A
// branch that does not exist is no error.
func DeleteBranch(ctx context.Context, repo, branch string) error {
	if strings.HasPrefix(branch, "-") {
		return fmt.Errorf("delete branch: invalid branch %q", branch)
	}
	if resolveCommit(ctx, repo, "refs/heads/"+branch) == "" {
		return nil
	}
	if _, err := git(ctx, repo, "branch", "-D", "--", branch); err != nil {
		return fmt.Errorf("delete branch %s: %w", branch, err)
	}
	return nil
}

// Branches lists the local branches of repo whose names start with prefix
// (such as "agentloop/"), sorted.
func Branches(ctx context.Context, repo, prefix string) ([]string, error) {
	out, err := git(ctx, repo, "for-each-ref", "--format=%(refname:strip=2)", "refs/heads/"+prefix)
	if err != nil {
		return nil, fmt.Errorf("list branches: %w", err)
	}
	return lines(out), nil
}

// Refs lists the refs of repo under prefix (such as "refs/agentloop/"), sorted.
func Refs(ctx context.Context, repo, prefix string) ([]string, error) {
	if !strings.HasPrefix(prefix, "refs/") {
		return nil, fmt.Errorf("list refs: %q is not under refs/", prefix)
	}
	out, err := git(ctx, repo, "for-each-ref", "--format=%(refname)", prefix)
	if err != nil {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	return lines(out), nil
}

// DeleteRefs deletes the hidden refs given (each under refs/agentloop/ or
// another non-branch namespace), in one git command.
func DeleteRefs(ctx context.Context, repo string, refs []string) error {
	if len(refs) == 0 {
		return nil
	}
	var in strings.Builder
	for _, r := range refs {
		if err := checkHiddenRef(r); err != nil {
			return fmt.Errorf("delete refs: %w", err)
		}
		fmt.Fprintf(&in, "delete %s\n", r)
	}
	c := cmd{dir: repo, stdin: strings.NewReader(in.String()), args: []string{"update-ref", "--stdin"}}
	if _, err := c.run(ctx); err != nil {
		return fmt.Errorf("delete refs: %w", err)
	}
	return nil
}

// Worktree is one worktree git knows of.
type Worktree struct {
	Path   string
	Branch string // short name; empty when detached
}

// Worktrees lists the worktrees of repo, the main one first.
func Worktrees(ctx context.Context, repo string) ([]Worktree, error) {
	out, err := git(ctx, repo, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, fmt.Errorf("list worktrees: %w", err)
	}
	var wts []Worktree
	for f := range strings.SplitSeq(out, "\x00") {
		switch {
		case strings.HasPrefix(f, "worktree "):
			wts = append(wts, Worktree{Path: filepath.Clean(strings.TrimPrefix(f, "worktree "))})
		case strings.HasPrefix(f, "branch ") && len(wts) > 0:
			wts[len(wts)-1].Branch = strings.TrimPrefix(strings.TrimPrefix(f, "branch "), "refs/heads/")
		}
	}
	return wts, nil
}

// PruneWorktrees forgets the worktrees whose folders are gone.
func PruneWorktrees(ctx context.Context, repo string) error {
	if _, err := git(ctx, repo, "worktree", "prune"); err != nil {
		return fmt.Errorf("prune worktrees: %w", err)
	}
	return nil
}

func lines(s string) []string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// IsMerged reports whether every commit of branch is on the current branch of
// repo (HEAD): deleting branch then loses nothing.
func IsMerged(ctx context.Context, repo, branch string) bool {
	tip := resolveCommit(ctx, repo, "refs/heads/"+branch)
	if tip == "" {
		return false
	}
	_, err := git(ctx, repo, "merge-base", "--is-ancestor", tip, "HEAD")
	return err == nil
}
