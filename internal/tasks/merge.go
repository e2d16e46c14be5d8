package tasks

import (
	"context"
	"fmt"
	"strings"
)

// MergeFunc merges a branch into the work tree at dir; on a conflict it leaves
// the tree as it was and reports the conflicting files ([gitx.Merge]).
//
// [gitx.Merge]: github.com/agentloop/agentloop/internal/gitx
type MergeFunc func(ctx context.Context, dir, branch string) (conflict bool, files []string, err error)

// MergeResult is the merge of one task's branch.
type MergeResult struct {
	ID       string   `json:"id"`
	Branch   string   `json:"branch"`
	Merged   bool     `json:"merged"`
	Conflict bool     `json:"conflict,omitempty"`
	Files    []string `json:"files,omitempty"`
}

// MergeBack merges the branches of the done tasks into repo in the given order
// (see [CompletionOrder]). A conflict does not stop it: that task's result says
// Conflict and the next branch is merged; [ApplyMerges] turns conflicts into
// escalations. Another merge error, or ctx being cancelled, stops it and returns
// the results so far.
func MergeBack(ctx context.Context, repo string, order []string, branchOf func(id string) string, merge MergeFunc) ([]MergeResult, error) {
	results := make([]MergeResult, 0, len(order))
	for _, id := range order {
		if err := ctx.Err(); err != nil {
			return results, fmt.Errorf("merge back: %w", err)
		}
		r := MergeResult{ID: id, Branch: branchOf(id)}
		conflict, files, err := merge(ctx, repo, r.Branch)
		if err != nil {
			return results, fmt.Errorf("merge back task %s (branch %s): %w", id, r.Branch, err)
		}
		r.Merged, r.Conflict, r.Files = !conflict, conflict, files
		results = append(results, r)
	}
	return results, nil
}

// ApplyMerges records merge conflicts in the outcomes: a conflicted task becomes
// escalated, with the files, for a human to resolve.
func ApplyMerges(out map[string]Outcome, results []MergeResult) {
	for _, r := range results {
		if !r.Conflict {
			continue
		}
		o := out[r.ID]
		o.State = StateEscalated
		o.Conflicts = r.Files
		o.Reason = fmt.Sprintf("merging branch %s conflicts in %s: resolve by hand, then resume", r.Branch, strings.Join(r.Files, ", "))
		out[r.ID] = o
	}
}
