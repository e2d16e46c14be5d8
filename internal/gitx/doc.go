// Package gitx owns agentloop's git operations on the user's work tree: checkpoints
// of the whole tree under hidden refs ([Snapshot]), rolling the tree back to one
// ([Restore]), diffs between checkpoints ([Diff], [DiffStat]), the opt-in commit and
// push after an iteration ([Commit], [Push]), and worktrees for parallel tasks
// ([AddWorktree], [RemoveWorktree], [Merge]). [Workspace] bundles them (with the
// diff facts of internal/diff) as the loop engine's view of the work tree.
//
// Everything runs the git CLI with the caller's context, in its own process group,
// with prompts disabled, but for what a checkpoint writes as git would: its ref
// files, and its commit objects once learned from a commit git made
// ([commitWriter]; git writes them when its configuration may sync objects).
// A session's diffs come from one `git diff-tree --stdin` it keeps. Checkpoints are built in a temporary index, so the user's
// branch, HEAD and index are never moved; ignored files and agentloop's own state
// directory ([StateDir]) are never recorded nor touched.
package gitx
