package graph

import (
	"fmt"
	"path/filepath"

	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// LoadReport reads a task graph's report: every task with its state, and the
// graph's spend and status. ok is false when there is no graph of that name.
func LoadReport(stateDir, name string) (r report.Run, ok bool, err error) {
	gs, found, perr, err := readState(stateDir, name, "")
	if err == nil && perr != nil {
		err = perr
	}
	if err != nil {
		return report.Run{}, true, fmt.Errorf("read task graph %s: %w", name, err)
	}
	if !found {
		return report.Run{}, false, nil
	}
	if gs.Repo == "" {
		gs.Repo = filepath.Dir(stateDir)
	}
	gs.File = filePath(gs.Repo, gs.File)
	file, err := tasks.Load(gs.File)
	if err != nil {
		return report.Run{}, true, fmt.Errorf("task graph %s: read its task file: %w", name, err)
	}
	r, err = Report(name, relTo(gs.Repo, gs.File), file.Tasks, gs.Outcomes, nil)
	if err == nil {
		attachRuns(state.Store{Root: stateDir}, name, r.Tasks)
	}
	return r, true, err
}

// Report is the report of the task graph name of the task file: every task
// with its state (running names those running now), and the graph's spend
// and status.
func Report(name, file string, ts []tasks.Task, outcomes map[string]tasks.Outcome, running map[string]bool) (report.Run, error) {
	g, err := tasks.NewGraph(ts)
	if err != nil {
		return report.Run{}, fmt.Errorf("task graph %s: %w", name, err)
	}
	st := &state.State{Version: state.StateVersion, Name: name, Procedure: "task graph " + file, Status: state.StatusSucceeded}
	for _, t := range ts {
		o, ok := outcomes[t.ID]
		st.Spend.Usage = st.Spend.Usage.Add(o.Usage)
		st.TotalIterations += o.Iterations
		switch {
		case ok && o.State == tasks.StateEscalated:
			st.Status = state.StatusEscalated
		case st.Status == state.StatusEscalated:
		case running[t.ID]:
			st.Status = state.StatusRunning
		case (!ok || !o.State.Done()) && st.Status != state.StatusRunning:
			st.Status = state.StatusInterrupted
		}
	}
	return report.Run{State: st, Tasks: tasks.Rows(g, outcomes, running)}, nil
}

// attachRuns gives each task row its own run (state, events, escalation), for
// the graph's report to show. A task whose state cannot be read is shown
// without it; reading moves nothing aside.
func attachRuns(store state.Store, graph string, rows []report.TaskRow) {
	states, _ := store.List()
	byName := make(map[string]*state.State, len(states))
	for _, st := range states {
		byName[st.Name] = st
	}
	for i := range rows {
		st, ok := byName[TaskRunName(graph, rows[i].ID)]
		if !ok {
			continue
		}
		_ = store.LoadHistory(st) // a gap: the task is shown with what its log holds
		r, err := report.LoadRunDir(store.RunDir(st.Name, st.RunID), st)
		if err != nil {
			r = report.Run{State: st}
		}
		rows[i].Run = &r
	}
}
