package gitx

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// IsAncestor reports whether the commit ancestor is rev or one of its
// ancestors in the repository at dir: merging ancestor into rev would add
// nothing. A commit the repository does not have is no ancestor.
func IsAncestor(ctx context.Context, dir, ancestor, rev string) bool {
	if ancestor == "" || rev == "" || strings.HasPrefix(ancestor, "-") || strings.HasPrefix(rev, "-") {
		return false
	}
	_, err := git(ctx, dir, "merge-base", "--is-ancestor", ancestor, rev)
	return err == nil
}

// ModifiedFiles lists the tracked files of the work tree at dir whose changes
// are not committed (staged or not), sorted: what a merge there would refuse
// to touch, or could not give back intact.
func ModifiedFiles(ctx context.Context, dir string) ([]string, error) {
	return statusFiles(ctx, dir, "no")
}

// statusFiles lists the files git status names in the work tree at dir,
// sorted; untracked is its --untracked-files mode.
func statusFiles(ctx context.Context, dir, untracked string) ([]string, error) {
	out, err := git(ctx, dir, "status", "--porcelain", "-z", "--untracked-files="+untracked)
	if err != nil {
		return nil, fmt.Errorf("list the changed files of %s: %w", dir, err)
	}
	var files []string
	for e := range strings.SplitSeq(out, "\x00") {
		if len(e) > 3 {
			files = append(files, e[3:])
		}
	}
	sort.Strings(files)
	return files, nil
}

// CurrentBranch is the branch checked out in the work tree at dir, "" when
// HEAD is detached.
func CurrentBranch(ctx context.Context, dir string) string {
	out, err := git(ctx, dir, "symbolic-ref", "-q", "--short", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// Detach checks out commit in the work tree at dir with a detached HEAD. Git
// refuses when uncommitted changes would be overwritten: nothing is lost.
func Detach(ctx context.Context, dir, commit string) error {
	if strings.HasPrefix(commit, "-") {
		return fmt.Errorf("detach: invalid commit %q", commit)
	}
	if _, err := git(ctx, dir, "checkout", "--quiet", "--detach", commit, "--"); err != nil {
		return fmt.Errorf("check out %s: %w", short(commit), err)
	}
	return nil
}

// SwitchBranch checks out branch in the work tree at dir; with at, the branch
// is first set to that commit (created or moved: git checkout -B), which must
// contain what the work tree holds. Git refuses when uncommitted changes would
// be overwritten.
func SwitchBranch(ctx context.Context, dir, branch, at string) error {
	if strings.HasPrefix(branch, "-") || strings.HasPrefix(at, "-") {
		return fmt.Errorf("switch branch: invalid branch %q or commit %q", branch, at)
	}
	args := []string{"checkout", "--quiet", branch, "--"}
	if at != "" {
		args = []string{"checkout", "--quiet", "-B", branch, at, "--"}
	}
	if _, err := git(ctx, dir, args...); err != nil {
		return fmt.Errorf("check out branch %s: %w", branch, err)
	}
	return nil
}

// AbortMerge ends a merge left in progress in the work tree at dir (a process
// killed in the middle of one), giving back the tree as it was before; with no
// merge in progress it does nothing.
func AbortMerge(ctx context.Context, dir string) error {
	if resolveCommit(ctx, dir, "MERGE_HEAD") == "" {
		return nil
	}
	if _, err := git(ctx, dir, "merge", "--abort"); err != nil {
		return fmt.Errorf("abort the merge left in progress: %w", err)
	}
	return nil
}

// FastForward moves the current branch of the work tree at dir (or its
// detached HEAD) forward to commit, which must contain it, updating the work
// tree; git refuses when that would overwrite uncommitted changes or untracked
// files.
func FastForward(ctx context.Context, dir, commit string) error {
	if strings.HasPrefix(commit, "-") {
		return fmt.Errorf("fast-forward: invalid commit %q", commit)
	}
	if _, err := git(ctx, dir, "merge", "--ff-only", "--quiet", commit); err != nil {
		return fmt.Errorf("fast-forward to %s: %w", short(commit), err)
	}
	return nil
}

// ShareCommit pushes commit to remote as its branch branch (forced), for the
// clones sharing remote to fetch it.
func ShareCommit(ctx context.Context, dir, remote, commit, branch string) error {
	spec, err := branchSpec(ctx, dir, remote, branch)
	if err != nil {
		return fmt.Errorf("share %s: %w", short(commit), err)
	}
	if !isObjectName(commit) {
		return fmt.Errorf("share %q: not a commit id", commit)
	}
	_, dst, _ := strings.Cut(spec, ":")
	if err := transfer(ctx, dir, "push", remote, "+"+commit+":"+dst); err != nil {
		return fmt.Errorf("push %s to %s as %s: %w", short(commit), remote, branch, err)
	}
	return nil
}

// ChangedFiles lists the files of the work tree at dir that differ from its
// HEAD, tracked or untracked (not ignored ones), sorted.
func ChangedFiles(ctx context.Context, dir string) ([]string, error) {
	return statusFiles(ctx, dir, "all")
}

// Discard puts the work tree at dir back at its HEAD: changes to tracked
// files undone, untracked files removed (ignored ones and [StateDir] kept).
func Discard(ctx context.Context, dir string) error {
	if _, err := git(ctx, dir, "reset", "--quiet", "--hard", "HEAD"); err != nil {
		return fmt.Errorf("discard the changes of %s: %w", dir, err)
	}
	if _, err := git(ctx, dir, "clean", "-fdq", "--", ".", stateExclude()); err != nil {
		return fmt.Errorf("discard the untracked files of %s: %w", dir, err)
	}
	return nil
}

// ErrNoMergeTree says that git is too old to merge without a work tree
// (git merge-tree --write-tree came with git 2.38).
var ErrNoMergeTree = errors.New("gitx: this git cannot merge without a work tree (git 2.38 or later can)")

// MergeCommit merges the commit theirs into ours in the repository at dir
// without touching any work tree or branch, and returns the merge commit
// (parents ours, then theirs; the message given). On a conflict it makes no
// commit and returns the conflicting files.
func MergeCommit(ctx context.Context, dir, ours, theirs, message string) (commit string, conflicts []string, err error) {
	if !isObjectName(ours) || !isObjectName(theirs) {
		return "", nil, fmt.Errorf("merge %q into %q: not commit ids", theirs, ours)
	}
	out, err := git(ctx, dir, "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", ours, theirs)
	if ge, ok := errors.AsType[*Error](err); ok && ge.ExitCode == 129 {
		return "", nil, ErrNoMergeTree
	}
	fields := strings.Split(strings.TrimRight(out, "\x00"), "\x00")
	switch {
	case err != nil && exitCode(err) == 1:
		conflicts = slices.Compact(slices.Sorted(slices.Values(fields[1:])))
		return "", conflicts, nil
	case err != nil:
		return "", nil, fmt.Errorf("merge %s into %s: %w", short(theirs), short(ours), err)
	}
	tree := strings.TrimSpace(fields[0])
	c := cmd{dir: dir, env: identityEnv(ctx, dir), stdin: strings.NewReader(message), args: []string{"commit-tree", tree, "-p", ours, "-p", theirs, "-F", "-"}}
	out, err = c.run(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("merge %s into %s: make the merge commit: %w", short(theirs), short(ours), err)
	}
	return strings.TrimSpace(out), nil, nil
}

// MergeBase is the best common ancestor of the commits a and b in the
// repository at dir, "" when they have none (or one is not there).
func MergeBase(ctx context.Context, dir, a, b string) string {
	if !isObjectName(a) || !isObjectName(b) {
		return ""
	}
	out, err := git(ctx, dir, "merge-base", a, b)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}
