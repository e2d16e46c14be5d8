// Package graph owns the task graph: the facts about a graph and its tasks that
// hold whichever engine runs it (the local one, or the Temporal engine on a
// fleet), and the rules both engines call.
//
// A task of a graph is a loop of its own, named [tasks.TaskRunName], in its own git
// worktree ([tasks.TaskWorkTree]) on its own branch ([tasks.TaskBranch]), with its graph's
// plan (plan.ForTask): the graph's configuration and flags, the task's
// procedure, prompt, files, gates and limits. Whichever command resumes a
// task — running the task file again, or resume GRAPH-TASK — resumes it with
// that plan (plan.ResumeTask), after the graph's own rule for a task it holds
// ([Hold]).
//
// depends_on means "builds on": a task starts once its dependencies are
// merged, from a tree that holds their work. A task's work is merged back as
// soon as its loop is done, one task at a time, and only if its required gates
// pass on the merged result ([Merger], [Gates]); a task git's ancestry shows
// merged already counts as merged. A task not merged — its gates failing on
// the merged result, a conflict, a merge the repository refuses — is that
// task's escalation. How a graph ended is told as values: the tasks whose
// work is not merged, each with what finishes it ([ListUnfinished]), which the
// command line prints and maps to its exit code. The graph's progress is kept
// in its state file ([State]); its budget over every task is judged by
// [GlobalBudget]; its report (report.TaskGraph) is the view's.
//
// The engines own their scheduling (internal/tasks is the schedule both
// drive): internal/app runs the tasks as local sessions, the Temporal
// engine as child workflows with these steps as activities. Package graph
// imports none of the packages built on it (plan, report, config, decide,
// engine, loop, app, temporal): it is loop core, low in the import chain.
package graph
