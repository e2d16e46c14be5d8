package report

import (
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// TaskGraph is the report of the task graph name of the task file: every
// task with its state (running names those running now), and the graph's
// spend and status.
func TaskGraph(name, file string, ts []tasks.Task, outcomes map[string]tasks.Outcome, running map[string]bool) (Run, error) {
	g, err := tasks.NewGraph(ts)
	if err != nil {
		return Run{}, fmt.Errorf("task graph %s: %w", name, err)
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
	return Run{State: st, Tasks: taskRows(g, outcomes, running)}, nil
}

// taskRows turns a graph and its outcomes (possibly partial: a run in
// progress) into the rows a report draws; running names the tasks running
// now.
func taskRows(g tasks.Graph, out map[string]tasks.Outcome, running map[string]bool) []TaskRow {
	rows := make([]TaskRow, len(g.Tasks))
	for i, t := range g.Tasks {
		o, ok := out[t.ID]
		state := string(tasks.StatePending)
		switch {
		case running[t.ID]:
			state = "running"
		case ok:
			state = string(o.State)
		}
		title := t.Title
		if title == "" {
			title, _, _ = strings.Cut(t.Prompt, "\n")
		}
		rows[i] = TaskRow{ID: t.ID, Title: title, State: state, DependsOn: t.DependsOn,
			Iterations: o.Iterations, Usage: o.Usage, Reason: o.Reason}
	}
	return rows
}

// AttachRuns gives each task row its own run (state, events, escalation), for
// the graph's report to show. A task whose state cannot be read is shown
// without it; reading moves nothing aside.
func AttachRuns(store state.Store, name string, rows []TaskRow) {
	states, _ := store.List()
	byName := make(map[string]*state.State, len(states))
	for _, st := range states {
		byName[st.Name] = st
	}
	for i := range rows {
		st, ok := byName[tasks.TaskRunName(name, rows[i].ID)]
		if !ok {
			continue
		}
		_ = store.LoadHistory(st) // a gap: the task is shown with what its log holds
		r, err := LoadRunDir(store.RunDir(st.Name, st.RunID), st)
		if err != nil {
			r = Run{State: st}
		}
		rows[i].Run = &r
	}
}
