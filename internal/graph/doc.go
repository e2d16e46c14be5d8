// Package graph owns the task graph: the facts about a graph and its tasks that
// hold whichever engine runs it (the local one, or the Temporal engine on a
// fleet). A task of a graph is a loop of its own, named [TaskRunName], in its
// own git worktree ([TaskWorkTree]) on its own branch ([TaskBranch]), with the
// plan of its graph ([TaskPlan]): the graph's configuration, the task's
// procedure, prompt, files, gates and limits. A task's work is committed on
// its branch ([CommitTask]) and merged back into the repository
// ([MergeTasks]), then its worktree and branch are removed ([PruneTasks]);
// the graph's progress is kept in its state file ([State]), and its budget
// over every task is judged by [GlobalBudget].
//
// The engines own their scheduling (internal/tasks is the schedule both
// drive): internal/session runs the tasks as local sessions, the Temporal
// engine as child workflows with these steps as activities.
package graph
