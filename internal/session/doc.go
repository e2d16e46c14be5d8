// Package session runs loops on this machine for the command line. It owns a
// session's lifecycle — take the run's lock, load or start its state, assemble
// the local engine from a plan, run the loop, save, and tell the person what to
// do next — and a task graph's orchestration: each task a session of its own in
// its own git worktree, the graph's state file, its global budget, and the merge
// of finished branches back (ticking a Markdown plan). It prints progress on
// ui printers (a session on the screen it is given) and reports how runs ended
// as values ([loop.Outcome], [GraphResult], [UsageError]); mapping them to exit
// codes is the caller's. Both engines answer the command line through one
// interface, [Engine]: [Local] here, the fleet of package temporal/app on a
// Temporal server.
package session
