package graph

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/agentloop/agentloop/internal/tasks"
)

// TaskStartLine is the progress line of the task t starting.
func TaskStartLine(t tasks.Task) string {
	return fmt.Sprintf("Task %s started: %s", t.ID, firstLine(t.Text()))
}

// TaskLine is the progress line of the task id that ended as o.
func TaskLine(id string, o tasks.Outcome) string {
	line := fmt.Sprintf("Task %s %s after %d %s", id, o.State, o.Iterations, pluralize(o.Iterations, "iteration"))
	if o.Reason != "" {
		line += ": " + o.Reason
	}
	return line
}

// TaskTitle is the first line of the task's text, as progress lines show it.
func TaskTitle(t tasks.Task) string { return firstLine(t.Text()) }

// WriteSummary writes the table of a graph's tasks as they ended.
func WriteSummary(w io.Writer, ts []tasks.Task, out map[string]tasks.Outcome) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATE\tITERATIONS\tREASON")
	for _, t := range ts {
		o, ok := out[t.ID]
		if !ok {
			o.State = tasks.StatePending
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", t.ID, o.State, o.Iterations, o.Reason)
	}
	tw.Flush()
}
