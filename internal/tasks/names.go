package tasks

import (
	"path/filepath"
	"time"
)

// TaskRunName is the run name of the task id of the graph: its state, its run
// folder and what status, report and resume call it.
func TaskRunName(graph, id string) string { return graph + "-" + id }

// TaskBranch is the branch the task id of the graph works on.
func TaskBranch(graph, id string) string { return "agentloop/" + graph + "/" + id }

// WorkTrees is the folder of the git worktrees of the graph's tasks.
func WorkTrees(stateDir, graph string) string {
	return filepath.Join(stateDir, "worktrees", graph)
}

// TaskWorkTree is the git worktree of the task id of the graph.
func TaskWorkTree(stateDir, graph, id string) string {
	return filepath.Join(WorkTrees(stateDir, graph), id)
}

// Member is a task of a graph, as the run of the task knows it: its plan is
// rebuilt from it (plan.ResumeTask).
type Member struct {
	Graph    string // the graph's name
	Repo     string // the repository the graph runs in
	StateDir string // the repository's state folder
	Task     Task   // the task, as its task file has it
}

// DefaultStopGrace is how long the git work a stopped graph still finishes
// (graph.Finishing) may go on after the signal, unless AGENTLOOP_STOP_GRACE says
// otherwise (plan.StopGrace reads it).
const DefaultStopGrace = 2 * time.Minute

// StopGraceEnv is the environment variable that sets the grace of
// graph.Finishing (a Go duration; [StopGrace] reads it).
const StopGraceEnv = "AGENTLOOP_STOP_GRACE"
