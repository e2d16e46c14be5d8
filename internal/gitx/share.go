package gitx

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
)

// ShareCheckpoints pushes the checkpoints under each of prefixes (hidden ref
// folders such as refs/agentloop/NAME/RUNID/) from the repository at dir to
// remote in one push, replacing what the remote had of them: a checkpoint
// taken again after a retry moves its ref. The remote gets one ref per
// prefix, its [journalRef], not one per checkpoint: each ref a remote holds
// costs every push to it. A prefix with no checkpoint pushes nothing. Another
// clone of the remote gets them with [FetchCheckpoints].
func ShareCheckpoints(ctx context.Context, dir, remote string, prefixes ...string) error {
	if len(prefixes) == 0 {
		return nil
	}
	for _, prefix := range prefixes {
		if _, err := checkpointSpec(remote, prefix); err != nil {
			return fmt.Errorf("share the checkpoints: %w", err)
		}
	}
	specs, err := writeJournals(ctx, dir, prefixes)
	if err != nil {
		return fmt.Errorf("share the checkpoints %s: %w", strings.Join(prefixes, " "), err)
	}
	if len(specs) == 0 {
		return nil
	}
	args := append([]string{"push", "--quiet", remote}, specs...)
	if _, err := (cmd{dir: dir, args: args}).remote(ctx); err != nil {
		return fmt.Errorf("push the checkpoints %s to %s: %w", strings.Join(prefixes, " "), remote, err)
	}
	return nil
}

// FetchCheckpoints fetches the checkpoints under prefix from remote into the
// repository at dir, replacing local refs of the same names: the refs the
// remote's journal of prefix lists ([ShareCheckpoints]), and the refs
// themselves under prefix a worker of an earlier version pushed. It leaves
// no journal ref under prefix. A malformed journal is an error.
func FetchCheckpoints(ctx context.Context, dir, remote, prefix string) error {
	spec, err := checkpointSpec(remote, prefix)
	if err != nil {
		return fmt.Errorf("fetch the checkpoints: %w", err)
	}
	if err := transfer(ctx, dir, "fetch", remote, spec); err != nil {
		return fmt.Errorf("fetch the checkpoints %s from %s: %w", prefix, remote, err)
	}
	if err := readJournal(ctx, dir, prefix); err != nil {
		return fmt.Errorf("the checkpoint journal fetched from %s: %w", remote, err)
	}
	return nil
}

// PackRefs packs the refs of the repository at dir into its packed-refs file,
// as git's gc does: a push reads every loose ref of the repository it pushes
// from, and a run's checkpoints leave several. A ref updated or deleted
// meanwhile is left as that left it.
func PackRefs(ctx context.Context, dir string) error {
	if _, err := git(ctx, dir, "pack-refs", "--all"); err != nil {
		return fmt.Errorf("pack the refs of %s: %w", dir, err)
	}
	return nil
}

// HasRemote reports whether the repository at dir has the remote.
func HasRemote(ctx context.Context, dir, remote string) bool {
	_, err := git(ctx, dir, "remote", "get-url", "--", remote)
	return err == nil
}

// RemoteURL is the URL the remote of the repository at dir fetches from, as
// git's configuration writes it (insteadOf rewrites applied).
func RemoteURL(ctx context.Context, dir, remote string) (string, error) {
	if err := checkRemote(remote); err != nil {
		return "", err
	}
	out, err := git(ctx, dir, "remote", "get-url", "--", remote)
	if err != nil {
		return "", fmt.Errorf("the URL of the remote %s: %w", remote, err)
	}
	return strings.TrimSpace(out), nil
}

// checkpointSpec is the forced refspec mapping the hidden refs under prefix to
// the same names.
func checkpointSpec(remote, prefix string) (string, error) {
	if err := checkRemote(remote); err != nil {
		return "", err
	}
	if !strings.HasPrefix(prefix, "refs/agentloop/") || !strings.HasSuffix(prefix, "/") || strings.ContainsAny(prefix, "*: ") {
		return "", fmt.Errorf("%q is not a checkpoint ref folder", prefix)
	}
	return "+" + prefix + "*:" + prefix + "*", nil
}

// ShareBranch pushes branch of the repository at dir to the branch of the same
// name on remote, replacing it: a task's branch, for the clone that merges it
// back.
func ShareBranch(ctx context.Context, dir, remote, branch string) error {
	spec, err := branchSpec(ctx, dir, remote, branch)
	if err != nil {
		return fmt.Errorf("share the branch: %w", err)
	}
	if err := transfer(ctx, dir, "push", remote, spec); err != nil {
		return fmt.Errorf("push the branch %s to %s: %w", branch, remote, err)
	}
	return nil
}

// ErrBranchMoved is returned by [ShareBranchOver] when the remote's branch
// is no longer where the caller saw it: someone pushed to it since.
var ErrBranchMoved = errors.New("the remote's branch moved since it was read")

// ShareBranchOver is [ShareBranch] on the condition that the remote's branch
// is still at expect (a commit; "" for no branch there yet), as git's
// --force-with-lease pushes: commits someone pushed to it since are never
// replaced, and the push fails with [ErrBranchMoved].
func ShareBranchOver(ctx context.Context, dir, remote, branch, expect string) error {
	spec, err := branchSpec(ctx, dir, remote, branch)
	if err != nil {
		return fmt.Errorf("share the branch: %w", err)
	}
	if expect != "" && !isObjectName(expect) {
		return fmt.Errorf("share the branch %s: %q is not a commit", branch, expect)
	}
	// The lease forces the push; a forced refspec ("+…") would bypass it.
	args := []string{"push", "--quiet", "--force-with-lease=refs/heads/" + branch + ":" + expect, remote, strings.TrimPrefix(spec, "+")}
	if _, err := (cmd{dir: dir, args: args}).remote(ctx); err != nil {
		// Told by the remote's branch as it is now, not by git's words,
		// which its locale may translate.
		if now, lerr := remoteBranch(ctx, dir, remote, branch); lerr == nil && now != expect {
			return fmt.Errorf("push the branch %s to %s: %w (it is at %s): %w", branch, remote, ErrBranchMoved, cmp.Or(short(now), "gone"), err)
		}
		return fmt.Errorf("push the branch %s to %s: %w", branch, remote, err)
	}
	return nil
}

// remoteBranch is the commit branch is at on remote ("" for none).
func remoteBranch(ctx context.Context, dir, remote, branch string) (string, error) {
	out, err := (cmd{dir: dir, args: []string{"ls-remote", "--refs", remote, "refs/heads/" + branch}}).remote(ctx)
	if err != nil {
		return "", err
	}
	commit, _, _ := strings.Cut(strings.TrimSpace(out), "\t")
	return commit, nil
}

// FetchBranch fetches branch from remote into the local branch of the same
// name of the repository at dir, replacing it (also when a worktree has it
// checked out).
func FetchBranch(ctx context.Context, dir, remote, branch string) error {
	spec, err := branchSpec(ctx, dir, remote, branch)
	if err != nil {
		return fmt.Errorf("fetch the branch: %w", err)
	}
	if err := transfer(ctx, dir, "fetch", remote, spec); err != nil {
		return fmt.Errorf("fetch the branch %s from %s: %w", branch, remote, err)
	}
	return nil
}

// DeleteRemoteBranch deletes branch on remote, unless the remote has none of
// that name.
func DeleteRemoteBranch(ctx context.Context, dir, remote, branch string) error {
	if _, err := branchSpec(ctx, dir, remote, branch); err != nil {
		return fmt.Errorf("delete the branch: %w", err)
	}
	ref := "refs/heads/" + branch
	ls := cmd{dir: dir, args: []string{"ls-remote", "--exit-code", remote, ref}}
	if _, err := ls.remote(ctx); exitCode(err) == 2 {
		return nil // no such branch there
	}
	if err := transfer(ctx, dir, "push", remote, ":"+ref); err != nil {
		return fmt.Errorf("delete the branch %s on %s: %w", branch, remote, err)
	}
	return nil
}

// BranchCommit is the commit branch points at in the repository at dir, ""
// when there is no such branch.
func BranchCommit(ctx context.Context, dir, branch string) string {
	return CommitOf(ctx, dir, "refs/heads/"+branch)
}

// CommitOf is the commit rev names in the repository at dir, "" when it
// names none there.
func CommitOf(ctx context.Context, dir, rev string) string { return resolveCommit(ctx, dir, rev) }

// TreeOf is the tree of the commit rev names in the repository at dir, ""
// when it names none there: commits of one tree hold the same files, whatever
// their history.
func TreeOf(ctx context.Context, dir, rev string) string {
	if rev == "" {
		return ""
	}
	out, err := git(ctx, dir, "rev-parse", "-q", "--verify", "--end-of-options", rev+"^{tree}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// FetchAll fetches remote's branches into the repository at dir (its
// remote-tracking branches), so that the commits on them are there.
func FetchAll(ctx context.Context, dir, remote string) error {
	if err := checkRemote(remote); err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	c := cmd{dir: dir, args: []string{"fetch", "--quiet", "--no-tags", remote}}
	if _, err := c.remote(ctx); err != nil {
		return fmt.Errorf("fetch from %s: %w", remote, err)
	}
	return nil
}

// transfer pushes or fetches (verb) the forced refspec spec to or from remote,
// without tags; a fetch may update a branch a worktree has checked out.
func transfer(ctx context.Context, dir, verb, remote, spec string) error {
	args := []string{verb, "--quiet", remote, spec}
	if verb == "fetch" {
		args = []string{verb, "--quiet", "--no-tags", "--update-head-ok", remote, spec}
	}
	_, err := cmd{dir: dir, args: args}.remote(ctx)
	return err
}

// checkRemote refuses a remote git would take for nothing or for an option.
func checkRemote(remote string) error {
	if remote == "" || strings.HasPrefix(remote, "-") {
		return fmt.Errorf("invalid remote %q", remote)
	}
	return nil
}

// branchSpec is the forced refspec mapping branch to the same name.
func branchSpec(ctx context.Context, dir, remote, branch string) (string, error) {
	if err := checkRemote(remote); err != nil {
		return "", err
	}
	if _, err := git(ctx, dir, "check-ref-format", "--branch", branch); err != nil || strings.HasPrefix(branch, "-") {
		return "", fmt.Errorf("invalid branch name %q", branch)
	}
	return "+refs/heads/" + branch + ":refs/heads/" + branch, nil
}

// AddCheckpoint points ref, a checkpoint ref under a run's folder
// (refs/agentloop/NAME/RUNID/…), at commit in the repository at dir, and
// when remote holds that folder's checkpoints (the workers of a fleet share
// them there: [ShareCheckpoints]) shares it with them: what the remote had
// of the folder fetched first, so that its journal, which this push
// replaces, keeps every checkpoint another clone shared. It reports whether
// it was shared.
func AddCheckpoint(ctx context.Context, dir, remote, ref, commit string) (shared bool, err error) {
	i := strings.LastIndex(ref, "/")
	prefix := ref[:i+1]
	if _, err := checkpointSpec(remote, prefix); err != nil || !validRefName(ref) || ref[i+1:] == journalRef || !isObjectName(commit) {
		return false, fmt.Errorf("add the checkpoint %s at %q: not a checkpoint ref and a commit (%v)", ref, commit, err)
	}
	there, err := RemoteRefs(ctx, dir, remote, prefix)
	if err != nil {
		return false, err
	}
	if len(there) > 0 {
		if err := FetchCheckpoints(ctx, dir, remote, prefix); err != nil {
			return false, err
		}
	}
	if _, err := git(ctx, dir, "update-ref", "-m", "agentloop checkpoint", ref, commit); err != nil {
		return false, fmt.Errorf("point %s at %s: %w", ref, short(commit), err)
	}
	if len(there) == 0 {
		return false, nil
	}
	return true, ShareCheckpoints(ctx, dir, remote, prefix)
}
