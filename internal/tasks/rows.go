package tasks

import "github.com/agentloop/agentloop/internal/report"

// Rows turns a graph and its outcomes (possibly partial: a run in progress) into
// the rows a report draws; running names the tasks running now.
func Rows(g Graph, out map[string]Outcome, running map[string]bool) []report.TaskRow {
	rows := make([]report.TaskRow, len(g.Tasks))
	for i, t := range g.Tasks {
		o, ok := out[t.ID]
		state := string(StatePending)
		switch {
		case running[t.ID]:
			state = "running"
		case ok:
			state = string(o.State)
		}
		title := t.Title
		if title == "" {
			title = firstLine(t.Prompt)
		}
		rows[i] = report.TaskRow{ID: t.ID, Title: title, State: state, DependsOn: t.DependsOn,
			Iterations: o.Iterations, Usage: o.Usage, Reason: o.Reason}
	}
	return rows
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}
