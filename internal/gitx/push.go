package gitx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrDetached reports that HEAD is not on a branch, so there is nothing to push.
var ErrDetached = errors.New("gitx: HEAD is detached (not on a branch)")

// Commit commits every change in the work tree at dir (tracked and untracked
// files, not ignored ones, never [StateDir]) on the current branch. It stages
// through the real index: this is the opt-in per-iteration commit. Nothing to
// commit is not an error. The user's hooks run; when git knows no identity the
// commit is made as agentloop.
func Commit(ctx context.Context, dir, message string) error {
	top, err := topLevel(ctx, dir)
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if _, err := git(ctx, top, "add", "-A", "--", ":/", stateExclude()); err != nil {
		return fmt.Errorf("commit: stage changes: %w", err)
	}
	if _, err := git(ctx, top, "diff", "--cached", "--quiet"); err == nil {
		return nil
	} else if exitCode(err) != 1 {
		return fmt.Errorf("commit: %w", err)
	}
	if strings.TrimSpace(message) == "" {
		message = "agentloop iteration"
	}
	c := cmd{dir: top, env: identityEnv(ctx, top), stdin: strings.NewReader(message), args: []string{"commit", "-q", "-F", "-"}}
	if _, err := c.run(ctx); err != nil {
		return fmt.Errorf("commit on the current branch: %w", err)
	}
	return nil
}

// Push pushes the current branch of the work tree at dir to remote ("" means the
// branch's upstream remote, else origin). A branch with an upstream on that remote
// is pushed to it; a branch without one is pushed with -u to a branch of the same
// name. The error is meant to be shown as a warning: the loop goes on.
func Push(ctx context.Context, dir, remote string) error {
	out, err := git(ctx, dir, "symbolic-ref", "-q", "--short", "HEAD")
	branch := strings.TrimSpace(out)
	if err != nil || branch == "" {
		return fmt.Errorf("push: %w; check out a branch to push", ErrDetached)
	}
	upRemote, upBranch := upstream(ctx, dir, branch)
	if remote == "" {
		remote = upRemote
	}
	if remote == "" {
		remote = "origin"
	}
	if strings.HasPrefix(remote, "-") {
		return fmt.Errorf("push: invalid remote %q", remote)
	}
	args := []string{"push", "--quiet", remote}
	switch {
	case upRemote == remote && upBranch != "":
		args = append(args, "HEAD:"+upBranch)
	case upRemote == "":
		args = []string{"push", "--quiet", "-u", remote, branch}
	default: // the upstream is on another remote: push there by name, keep the upstream
		args = append(args, branch)
	}
	c := cmd{dir: dir, args: args}
	if _, err := c.remote(ctx); err != nil {
		return fmt.Errorf("push %s to %s: %w", branch, remote, err)
	}
	return nil
}

// upstream returns the remote and the remote branch ref the branch tracks.
func upstream(ctx context.Context, dir, branch string) (remote, merge string) {
	r, err := git(ctx, dir, "config", "--get", "branch."+branch+".remote")
	if err != nil {
		return "", ""
	}
	m, err := git(ctx, dir, "config", "--get", "branch."+branch+".merge")
	if err != nil {
		return "", ""
	}
	return strings.TrimSpace(r), strings.TrimSpace(m)
}

// sshBatchEnv makes ssh fail instead of prompting for a passphrase or a host key
// (git runs in its own process group, so a prompt would stop it, not reach the
// user), unless the user configured ssh for git themselves.
func sshBatchEnv(ctx context.Context, dir string) []string {
	if os.Getenv("GIT_SSH_COMMAND") != "" || os.Getenv("GIT_SSH") != "" {
		return nil
	}
	if _, err := git(ctx, dir, "config", "--get", "core.sshCommand"); err == nil {
		return nil
	}
	return []string{"GIT_SSH_COMMAND=ssh -o BatchMode=yes"}
}
