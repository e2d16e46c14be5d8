package tasks

import (
	"fmt"
	"strings"
)

// MergeResult is the merge of one task's branch.
type MergeResult struct {
	ID       string   `json:"id"`
	Branch   string   `json:"branch"`
	Merged   bool     `json:"merged"`
	Conflict bool     `json:"conflict,omitempty"`
	Files    []string `json:"files,omitempty"`
}

// ApplyMerges records merge conflicts in the outcomes: a conflicted task becomes
// escalated, with the files, for a human to resolve. (The merges of a graph's
// workflow started before tasks merged one by one, internal/graph's Merger.)
func ApplyMerges(out map[string]Outcome, results []MergeResult) {
	for _, r := range results {
		if !r.Conflict {
			continue
		}
		o := out[r.ID]
		o.State, o.Unmerged = StateEscalated, MergeConflict
		o.Conflicts = r.Files
		o.Reason = fmt.Sprintf("merging branch %s conflicts in %s: resolve by hand, then resume", r.Branch, strings.Join(r.Files, ", "))
		out[r.ID] = o
	}
}
