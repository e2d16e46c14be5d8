package gitx

import (
	"context"
	"fmt"
	"strings"
)

// RemoteRefs lists the refs under prefix (such as "refs/agentloop/") that
// remote has, as the repository at dir reaches it, sorted as the remote
// lists them.
func RemoteRefs(ctx context.Context, dir, remote, prefix string) ([]string, error) {
	if err := checkRemote(remote); err != nil {
		return nil, fmt.Errorf("list the refs of the remote: %w", err)
	}
	if !strings.HasPrefix(prefix, "refs/") || strings.ContainsAny(prefix, "*: ") {
		return nil, fmt.Errorf("list the refs of %s: %q is not a ref folder", remote, prefix)
	}
	c := cmd{dir: dir, args: []string{"ls-remote", "--refs", remote, prefix + "*"}}
	out, err := c.remote(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the refs %s of %s: %w", prefix, remote, err)
	}
	var refs []string
	for _, l := range lines(out) {
		if _, ref, ok := strings.Cut(l, "\t"); ok && strings.HasPrefix(ref, prefix) {
			refs = append(refs, ref)
		}
	}
	return refs, nil
}

// DeleteRemoteRefs deletes the hidden refs given (each under refs/agentloop/
// or another non-branch namespace) on remote, in one push.
func DeleteRemoteRefs(ctx context.Context, dir, remote string, refs []string) error {
	if len(refs) == 0 {
		return nil
	}
	if err := checkRemote(remote); err != nil {
		return fmt.Errorf("delete the refs of the remote: %w", err)
	}
	args := []string{"push", "--quiet", remote}
	for _, r := range refs {
		if err := checkHiddenRef(r); err != nil {
			return fmt.Errorf("delete the refs of %s: %w", remote, err)
		}
		args = append(args, ":"+r)
	}
	if _, err := (cmd{dir: dir, args: args}).remote(ctx); err != nil {
		return fmt.Errorf("delete %d refs on %s: %w", len(refs), remote, err)
	}
	return nil
}
