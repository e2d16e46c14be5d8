package graph

import (
	"fmt"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/tasks"
)

// Unmerged is the record of the task of a graph whose loop ended done but
// whose work could not be merged back: u says why (a conflict, changes of
// yours in the way, gates failing on the merged result) and what finishes
// it, as the graph says it with the commands c.
func Unmerged(graphName string, u Unfinished, c Commands) decision.NeedsYou {
	next := c.Run()
	if u.Issue == tasks.MergeGates {
		next = c.Resume(tasks.TaskRunName(graphName, u.ID))
	}
	q := "Its work could not be merged back. Finish the merge?"
	switch u.Issue {
	case tasks.MergeConflict:
		q = fmt.Sprintf("The branch of task %s conflicts with the work merged before it. Resolve it?", u.ID)
	case tasks.MergeRefused:
		q = fmt.Sprintf("Changes of yours in the repository are in the way of merging task %s. Commit or stash them?", u.ID)
	}
	return decision.NeedsYou{
		Kind: decision.NeedsMerge, Run: tasks.TaskRunName(graphName, u.ID), Graph: graphName, Task: u.ID,
		Question: q, Evidence: u.Reason,
		Options: []decision.Answer{{Label: u.Next, Command: next}},
	}
}
