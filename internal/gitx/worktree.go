package gitx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrDirty reports uncommitted changes to tracked files where an operation needs
// a clean tree.
var ErrDirty = errors.New("gitx: the work tree has uncommitted changes")

// AddWorktree creates a worktree of repo at path on branch, for a parallel task.
// A branch that does not exist yet is created at base ("" means HEAD); an
// existing one is checked out as it is, never reset.
func AddWorktree(ctx context.Context, repo, path, branch, base string) error {
	if strings.HasPrefix(branch, "-") || strings.HasPrefix(base, "-") {
		return fmt.Errorf("add worktree: invalid branch %q or base %q", branch, base)
	}
	if _, err := git(ctx, repo, "check-ref-format", "--branch", branch); err != nil {
		return fmt.Errorf("add worktree: invalid branch name %q: %w", branch, err)
	}
	var args []string
	if resolveCommit(ctx, repo, "refs/heads/"+branch) != "" {
		args = []string{"worktree", "add", "--quiet", "--", path, branch}
	} else {
		if base == "" {
			base = "HEAD"
		}
		args = []string{"worktree", "add", "--quiet", "-b", branch, "--", path, base}
	}
	if _, err := git(ctx, repo, args...); err != nil {
		return fmt.Errorf("add worktree %s on %s: %w", path, branch, err)
	}
	return nil
}

// RemoveWorktree removes the worktree at path. Without force, git refuses when
// the worktree has uncommitted or untracked files, so nothing is lost; with
// force those are discarded. The worktree's branch is kept.
func RemoveWorktree(ctx context.Context, repo, path string, force bool) error {
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
	}
	if _, err := git(ctx, repo, append(args, "--", path)...); err != nil {
		return fmt.Errorf("remove worktree %s: %w", path, err)
	}
	_, _ = git(ctx, repo, "worktree", "prune")
	return nil
}

// Merge merges branch into the current branch of the work tree at dir with a
// merge commit (--no-ff). On a conflict it aborts the merge, leaving the tree as
// it was, and returns conflict true with the conflicting files. It refuses to
// start when tracked files have uncommitted changes ([ErrDirty]), because an
// aborted merge could not give those back intact.
func Merge(ctx context.Context, dir, branch string) (conflict bool, files []string, err error) {
	if strings.HasPrefix(branch, "-") {
		return false, nil, fmt.Errorf("merge: invalid branch %q", branch)
	}
	st, err := git(ctx, dir, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return false, nil, fmt.Errorf("merge %s: %w", branch, err)
	}
	if strings.TrimSpace(st) != "" {
		return false, nil, fmt.Errorf("merge %s: %w; commit them first", branch, ErrDirty)
	}
	c := cmd{dir: dir, env: identityEnv(ctx, dir), args: []string{"merge", "--no-ff", "--no-edit", "--quiet", branch}}
	_, mergeErr := c.run(ctx)
	if mergeErr == nil {
		return false, nil, nil
	}
	if resolveCommit(ctx, dir, "MERGE_HEAD") == "" {
		// git stopped before merging (unknown branch, untracked files in the way…).
		return false, nil, fmt.Errorf("merge %s: %w", branch, mergeErr)
	}
	out, err := git(ctx, dir, "diff", "--name-only", "--diff-filter=U", "-z")
	if err != nil {
		err = fmt.Errorf("merge %s: list conflicts: %w", branch, err)
	}
	for f := range strings.SplitSeq(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	if _, aerr := git(ctx, dir, "merge", "--abort"); aerr != nil {
		return true, files, errors.Join(err, fmt.Errorf("merge %s: abort the conflicted merge (run git merge --abort): %w", branch, aerr))
	}
	return true, files, err
}

// MergeConflicted merges rev into the current branch of the work tree at
// dir with a merge commit (message its message), as [Merge] does; on a
// conflict it commits the conflicting files as git left them, their
// conflict markers in, so that the branch has rev as a parent all the
// same, and returns those files for someone to resolve ([ConflictMarkers]
// finds the markers left). Refused, like Merge, on uncommitted changes to
// tracked files ([ErrDirty]).
func MergeConflicted(ctx context.Context, dir, rev, message string) (conflicts []string, err error) {
	if strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("merge: invalid revision %q", rev)
	}
	st, err := git(ctx, dir, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return nil, fmt.Errorf("merge %s: %w", rev, err)
	}
	if strings.TrimSpace(st) != "" {
		return nil, fmt.Errorf("merge %s: %w; commit them first", rev, ErrDirty)
	}
	env := identityEnv(ctx, dir)
	_, mergeErr := cmd{dir: dir, env: env, args: []string{"merge", "--no-ff", "--quiet", "-m", message, rev}}.run(ctx)
	if mergeErr == nil {
		return nil, nil
	}
	if resolveCommit(ctx, dir, "MERGE_HEAD") == "" {
		return nil, fmt.Errorf("merge %s: %w", rev, mergeErr)
	}
	out, err := git(ctx, dir, "diff", "--name-only", "--diff-filter=U", "-z")
	if err != nil {
		return nil, fmt.Errorf("merge %s: list conflicts: %w", rev, err)
	}
	for f := range strings.SplitSeq(out, "\x00") {
		if f != "" {
			conflicts = append(conflicts, f)
		}
	}
	sort.Strings(conflicts)
	if _, err := git(ctx, dir, "add", "-A", "--", ":/", stateExclude()); err != nil {
		return conflicts, fmt.Errorf("merge %s: stage the conflicts: %w", rev, err)
	}
	if _, err := (cmd{dir: dir, env: env, stdin: strings.NewReader(message), args: []string{"commit", "-q", "--no-verify", "-F", "-"}}).run(ctx); err != nil {
		return conflicts, fmt.Errorf("merge %s: commit the conflicts: %w", rev, err)
	}
	return conflicts, nil
}

// ConflictMarkers are the files of files (relative to the work tree at
// dir) that still hold a line of a conflict marker (<<<<<<< or >>>>>>>).
func ConflictMarkers(dir string, files []string) []string {
	var left []string
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			continue // gone: nothing left in it
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if strings.HasPrefix(line, "<<<<<<< ") || strings.HasPrefix(line, ">>>>>>> ") {
				left = append(left, f)
				break
			}
		}
	}
	return left
}
