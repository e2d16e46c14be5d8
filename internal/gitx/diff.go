package gitx

import (
	"context"
	"fmt"
	"strings"
)

// diffArgs are the options that make git's diff output the same whatever the
// user's configuration (prefixes, colour, external drivers, rename detection).
func diffArgs(extra ...string) []string {
	args := []string{
		"-c", "core.quotePath=false",
		"diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M",
		"--src-prefix=a/", "--dst-prefix=b/",
	}
	return append(args, extra...)
}

// Diff returns the unified diff from snapshot from to snapshot to, or to the
// current work tree (tracked and untracked files, not ignored ones) when to is "",
// as git prints it (unredacted: it is for analysis; what is shown or written
// goes through internal/redact).
// An empty from means the empty tree. Past 32 MiB the diff is cut and the error
// wraps [ErrTruncated], with the beginning returned.
func Diff(ctx context.Context, dir, from, to string) (string, error) {
	return diffCmd(ctx, dir, from, to)
}

// DiffStat returns git's --stat summary between the same points as [Diff].
func DiffStat(ctx context.Context, dir, from, to string) (string, error) {
	return diffCmd(ctx, dir, from, to, "--stat")
}

func diffCmd(ctx context.Context, dir, from, to string, extra ...string) (string, error) {
	top, err := topLevel(ctx, dir)
	if err != nil {
		return "", fmt.Errorf("diff: %w", err)
	}
	if to == "" {
		if to, err = Tree(ctx, top); err != nil {
			return "", fmt.Errorf("diff: %w", err)
		}
	}
	return diffTrees(ctx, top, from, to, extra...)
}

// diffTrees is the diff from from to to at the top of a work tree.
func diffTrees(ctx context.Context, top, from, to string, extra ...string) (string, error) {
	if strings.HasPrefix(from, "-") || strings.HasPrefix(to, "-") {
		return "", fmt.Errorf("diff: invalid revision %q..%q", from, to)
	}
	var err error
	if from == "" {
		if from, err = emptyTree(ctx, top); err != nil {
			return "", fmt.Errorf("diff: %w", err)
		}
	}
	out, err := git(ctx, top, diffArgs(append(extra, from, to, "--")...)...)
	if err != nil {
		return out, fmt.Errorf("diff %s..%s: %w", short(from), short(to), err)
	}
	return out, nil
}

// emptyTree returns the name of the empty tree in the repository's hash.
func emptyTree(ctx context.Context, dir string) (string, error) {
	out, err := cmd{dir: dir, stdin: strings.NewReader(""), args: []string{"hash-object", "-t", "tree", "-w", "--stdin"}}.run(ctx)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}
