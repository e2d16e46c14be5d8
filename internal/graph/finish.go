package graph

import (
	"fmt"
	"io"

	"github.com/agentloop/agentloop/internal/shellword"
	"github.com/agentloop/agentloop/internal/tasks"
)

// Commands says how the commands a person is told are written: the task file
// as given, and the flags of the engine the graph runs on ("" for the local
// one, else "--engine temporal" and the server's flags).
type Commands struct {
	TaskFile string
	Engine   string
	// Into is the repository's branch the tasks merge into ("" when HEAD is
	// detached), for resolving a conflict with it.
	Into string
}

func (c Commands) with(cmd string) string {
	if c.Engine != "" {
		cmd += " " + c.Engine
	}
	return cmd
}

// Run is the command that resumes the graph.
func (c Commands) Run() string {
	return c.with("agentloop run --tasks " + shellword.Join([]string{c.TaskFile}))
}

// Resume is the command that answers the escalation of the run name.
func (c Commands) Resume(name string) string {
	return c.with("agentloop resume " + name + ` --guidance "..."`)
}

// Report is the command that shows the run name, its escalation included.
func (c Commands) Report(name string) string { return c.with("agentloop report " + name) }

// Unfinished is a task of a graph whose work is not merged back: how it
// stands, and what finishes it.
type Unfinished struct {
	ID     string
	State  tasks.State
	Issue  tasks.MergeIssue // a done task's merge that did not happen
	Reason string
	Next   string // what to do, with the command
}

// ListUnfinished is every task of the graph (its tasks ts, their outcomes out,
// the ones merged) whose work is not merged back, in the task file's order,
// each with what finishes it. An empty list is a graph that is done.
func ListUnfinished(graph string, ts []tasks.Task, out map[string]tasks.Outcome, merged []string, c Commands) []Unfinished {
	done := make(map[string]bool, len(merged))
	for _, id := range merged {
		done[id] = true
	}
	var list []Unfinished
	for _, t := range ts {
		if t.Done || done[t.ID] {
			continue
		}
		o, ok := out[t.ID]
		if !ok {
			o = tasks.Outcome{State: tasks.StatePending, Reason: "not started"}
		}
		u := Unfinished{ID: t.ID, State: o.State, Issue: o.Unmerged, Reason: o.Reason}
		u.Next = c.next(tasks.TaskRunName(graph, t.ID), o)
		list = append(list, u)
	}
	return list
}

// WriteUnfinished writes the tasks of list, each with where its work is kept
// (keptAt: its worktree and branch, "" when it has none) and what finishes
// it; nothing when list is empty.
func WriteUnfinished(w io.Writer, list []Unfinished, keptAt func(id string) string) {
	if len(list) == 0 {
		return
	}
	fmt.Fprintln(w, "\nNot merged:")
	for _, u := range list {
		line := fmt.Sprintf("  %s (%s)", u.ID, u.State)
		if u.Issue != "" {
			line = fmt.Sprintf("  %s (%s: merge %s)", u.ID, u.State, u.Issue)
		}
		if kept := keptAt(u.ID); kept != "" {
			line += ": " + kept
		} else if u.Reason != "" {
			line += ": " + u.Reason
		}
		fmt.Fprintln(w, line)
		fmt.Fprintf(w, "    then: %s\n", u.Next)
	}
}

// next is what finishes the task whose run is run and outcome o.
func (c Commands) next(run string, o tasks.Outcome) string {
	switch {
	case o.Unmerged == tasks.MergeGates:
		return fmt.Sprintf("its loop fixes the merged result in its worktree once you answer: %s", c.Resume(run))
	case o.Unmerged == tasks.MergeConflict:
		into := "the branch the graph merges into"
		if c.Into != "" {
			into = c.Into
		}
		return fmt.Sprintf("merge %s into its worktree, resolve the conflict and commit there, then: %s", into, c.Run())
	case o.Unmerged == tasks.MergeRefused:
		return fmt.Sprintf("commit or stash your changes in the repository, then: %s", c.Run())
	case o.State == tasks.StateEscalated:
		return fmt.Sprintf("read its escalation (%s), then: %s", c.Report(run), c.Resume(run))
	case o.State == tasks.StateBlocked:
		return fmt.Sprintf("it starts once its dependencies are merged: finish them, then: %s", c.Run())
	case o.State == tasks.StateSkipped:
		return fmt.Sprintf("raise the graph's budget in %s, then: %s", c.TaskFile, c.Run())
	case o.State.Done():
		return fmt.Sprintf("its loop is done; its merge is tried again by: %s", c.Run())
	case o.State == tasks.StateFailed:
		return fmt.Sprintf("see why with: %s; then (with a higher limit if one stopped it): %s", c.Report(run), c.Run())
	}
	return c.Run() // pending, interrupted
}
