package sandbox

import (
	"os"
	"path/filepath"

	"github.com/agentloop/agentloop/internal/gitx"
)

// gitControls are the files of the work tree's git folders that make git run
// commands outside the sandbox, which the command inside must not write: each
// git folder's hooks and config (and config.worktree). A git folder is a
// folder of tree, or the .git folder in one, that holds HEAD. A missing hooks
// folder is made with create (bubblewrap can only protect what exists);
// a missing config.worktree is left out.
func gitControls(tree []string, create bool) []string {
	var out []string
	for _, t := range tree {
		for _, dir := range []string{t, filepath.Join(t, ".git")} {
			if !isDir(dir) || !exists(filepath.Join(dir, "HEAD")) {
				continue
			}
			hooks, configs := gitx.Controls(resolve(dir))
			if create && !exists(hooks) {
				_ = os.Mkdir(hooks, 0o755) // if it cannot be made, bubblewrap leaves it out
			}
			out = addUnique(out, hooks)
			for _, f := range configs {
				if exists(f) {
					out = addUnique(out, f)
				}
			}
		}
	}
	return out
}
