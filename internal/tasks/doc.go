// Package tasks runs many loops as a task graph: it parses a task file
// (tasks.yaml) or a Markdown checklist plan into tasks with dependencies,
// validates the graph (unique ids, known dependencies, no cycles), orders it in
// layers, and schedules the tasks — up to Parallel at once, in dependency order —
// through a caller-supplied Run function. A task that fails or escalates blocks
// only its dependents. Succeeded tasks are recorded in completion order.
//
// depends_on means "builds on": a task becomes ready only when every task it
// depends on is done, and the engines count a task done only once its work is
// merged back (internal/graph), so a task starts from a tree that holds its
// dependencies' work. A task whose work could not be merged ends escalated
// ([Outcome.Unmerged] says why) and blocks its dependents.
//
// The package owns scheduling and ordering, not the loop itself nor git: the
// caller's Run runs one task's loop (in its own worktree), and the merge is
// injected (internal/gitx.Merge in production).
//
// # Task file
//
//	parallel: 2                        # tasks at once (optional)
//	budget: {max_cost_usd: 25, max_tokens: 5000000}   # over every task (optional)
//	tasks:
//	  - id: schema                     # letters, digits, . _ -
//	    title: Add the users table
//	    prompt: Add a users table …     # or procedure: NAME (not both)
//	    files: ["db/**"]                # globs in scope
//	    limits: {max_iterations: 4}     # overrides the procedure's limits
//	  - id: api
//	    procedure: build
//	    depends_on: [schema]
//	    gates: [{name: tests, run: "go test ./api/..."}]   # replaces the procedure's gates
//
// Unknown keys, wrong types, duplicate or unknown ids and cycles are errors that
// name file:line:col.
//
// # Markdown plan
//
// A Markdown plan is a checklist:
//
//	# Plan
//	- [ ] Add the users table (id: schema)
//	  - columns: id, email, created_at
//	- [ ] REST endpoints for users (after: schema)
//	- [x] Set up CI
//
// Each top-level checklist item ("- [ ]", "* [ ]" or "+ [ ]", also numbered
// "1. [ ]") is a task, in the order written. Items indented under it, checklist or
// not, and indented text are its notes, appended to its prompt. "[x]" marks a task
// already done. A trailing "(id: NAME)" names the task; otherwise its id is the
// title's slug ("add-the-users-table"), made unique with "-2", "-3"… A trailing
// "(after: a, b)" makes it depend on those ids; without it a task depends on
// nothing. Lines inside fenced code blocks are ignored, as are plain bullets.
// When a task succeeds, [TickMarkdown] ticks its item in the plan (Task.Pos.Line).
package tasks
