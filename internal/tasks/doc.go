// Package tasks runs many loops as a task graph: it parses a task file
// (tasks.yaml) or a Markdown checklist plan into tasks with dependencies,
// validates the graph (unique ids, known dependencies, no cycles), orders it in
// layers, and schedules the tasks — up to Parallel at once, in dependency order —
// through a caller-supplied Run function. A task that fails or escalates blocks
// only its dependents. Succeeded tasks are recorded in completion order so their
// branches can be merged back in that order ([MergeBack]).
//
// The package owns scheduling and ordering, not the loop itself nor git: the
// caller's Run runs one task's loop (in its own worktree), and the merge is
// injected (internal/gitx.Merge in production).
package tasks
