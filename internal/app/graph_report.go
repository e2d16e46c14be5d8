package app

import (
	"fmt"

	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// loadTaskGraph reads a task graph's report: every task with its state, and
// the graph's spend and status. ok is false when there is no graph of that
// name.
func loadTaskGraph(stateDir, name string) (r report.Run, ok bool, err error) {
	gs, found, err := graph.ReadState(stateDir, name)
	if err != nil {
		return report.Run{}, true, err
	}
	if !found {
		return report.Run{}, false, nil
	}
	file, err := tasks.Load(gs.File)
	if err != nil {
		return report.Run{}, true, fmt.Errorf("task graph %s: read its task file: %w", name, err)
	}
	r, err = report.TaskGraph(name, gs.RepoFile(), file.Tasks, gs.Outcomes, nil)
	if err == nil {
		report.AttachRuns(state.Store{Root: stateDir}, name, r.Tasks)
	}
	return r, true, err
}
