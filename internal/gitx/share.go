package gitx

import (
	"context"
	"fmt"
	"strings"
)

// ShareCheckpoints pushes the checkpoint refs under prefix (a hidden ref
// folder such as refs/agentloop/NAME/RUNID/) from the repository at dir to
// remote, replacing what the remote had under the same names: a checkpoint
// taken again after a retry moves its ref. Another clone of the remote gets
// them with [FetchCheckpoints].
func ShareCheckpoints(ctx context.Context, dir, remote, prefix string) error {
	spec, err := checkpointSpec(remote, prefix)
	if err != nil {
		return fmt.Errorf("share the checkpoints: %w", err)
	}
	c := cmd{dir: dir, env: sshBatchEnv(ctx, dir), args: []string{"push", "--quiet", remote, spec}}
	if _, err := c.run(ctx); err != nil {
		return fmt.Errorf("push the checkpoints %s to %s: %w", prefix, remote, err)
	}
	return nil
}

// FetchCheckpoints fetches the checkpoint refs under prefix from remote into the
// repository at dir, replacing local refs of the same names.
func FetchCheckpoints(ctx context.Context, dir, remote, prefix string) error {
	spec, err := checkpointSpec(remote, prefix)
	if err != nil {
		return fmt.Errorf("fetch the checkpoints: %w", err)
	}
	c := cmd{dir: dir, env: sshBatchEnv(ctx, dir), args: []string{"fetch", "--quiet", "--no-tags", remote, spec}}
	if _, err := c.run(ctx); err != nil {
		return fmt.Errorf("fetch the checkpoints %s from %s: %w", prefix, remote, err)
	}
	return nil
}

// HasRemote reports whether the repository at dir has the remote.
func HasRemote(ctx context.Context, dir, remote string) bool {
	_, err := git(ctx, dir, "remote", "get-url", "--", remote)
	return err == nil
}

// checkpointSpec is the forced refspec mapping the hidden refs under prefix to
// the same names.
func checkpointSpec(remote, prefix string) (string, error) {
	if remote == "" || strings.HasPrefix(remote, "-") {
		return "", fmt.Errorf("invalid remote %q", remote)
	}
	if !strings.HasPrefix(prefix, "refs/agentloop/") || !strings.HasSuffix(prefix, "/") || strings.ContainsAny(prefix, "*: ") {
		return "", fmt.Errorf("%q is not a checkpoint ref folder", prefix)
	}
	return "+" + prefix + "*:" + prefix + "*", nil
}
