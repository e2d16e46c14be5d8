package gitx

import (
	"context"
	"fmt"
	"strings"
)

// Init makes dir a git repository with everything in it as the first commit
// (made as agentloop when git knows no user identity). A folder that is already
// a repository is left as it is.
func Init(ctx context.Context, dir, message string) error {
	if IsRepo(ctx, dir) {
		return nil
	}
	if _, err := git(ctx, dir, "init", "-q"); err != nil {
		return fmt.Errorf("init %s: %w", dir, err)
	}
	if _, err := git(ctx, dir, "add", "-A"); err != nil {
		return fmt.Errorf("init %s: stage the files: %w", dir, err)
	}
	c := cmd{dir: dir, env: identityEnv(ctx, dir), stdin: strings.NewReader(message),
		args: []string{"commit", "-q", "--no-gpg-sign", "--allow-empty", "-F", "-"}}
	if _, err := c.run(ctx); err != nil {
		return fmt.Errorf("init %s: first commit: %w", dir, err)
	}
	return nil
}
