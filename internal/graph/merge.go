package graph

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/tasks"
)

// MergeTasks merges the branches of the done tasks of the graph into repo in
// order (see [tasks.MergeBack]) and ticks each merged task in a Markdown plan;
// what could not be ticked is a warning.
func MergeTasks(ctx context.Context, repo, graph string, file *tasks.File, order []string, warnf func(format string, args ...any)) ([]tasks.MergeResult, error) {
	branch := func(id string) string { return TaskBranch(graph, id) }
	results, err := tasks.MergeBack(ctx, repo, order, branch, gitx.Merge)
	for _, r := range results {
		if r.Merged {
			tick(ctx, repo, file, r.ID, warnf)
		}
	}
	return results, err
}

// tick marks a merged task's item done in a Markdown plan and commits the plan,
// so the work tree stays clean for the next merge.
func tick(ctx context.Context, repo string, file *tasks.File, id string, warnf func(format string, args ...any)) {
	if !strings.HasSuffix(strings.ToLower(file.Path), ".md") {
		return
	}
	t, ok := taskByID(file.Tasks, id)
	if !ok || t.Pos.Line == 0 {
		return
	}
	if err := tasks.TickMarkdown(file.Path, t.Pos.Line); err != nil {
		warnf("tick %s in %s: %v", id, file.Path, err)
		return
	}
	if err := gitx.Commit(ctx, repo, fmt.Sprintf("agentloop: task %s done (%s)", id, filepath.Base(file.Path))); err != nil {
		warnf("commit the ticked plan: %v", err)
	}
}

// PruneTasks removes the worktrees and branches of the merged tasks of the
// graph, then the graph's worktree folder once empty; what could not be
// removed is a warning.
func PruneTasks(ctx context.Context, repo, stateDir, graph string, merged []string, warnf func(format string, args ...any)) {
	for _, id := range merged {
		wt := TaskWorkTree(stateDir, graph, id)
		if _, err := os.Stat(wt); err == nil {
			if err := gitx.RemoveWorktree(ctx, repo, wt, false); err != nil {
				warnf("task %s is merged but its worktree %s was kept: %v", id, relTo(repo, wt), err)
				continue
			}
		}
		if err := gitx.DeleteMergedBranch(ctx, repo, TaskBranch(graph, id)); err != nil {
			warnf("task %s is merged but its branch was kept: %v", id, err)
		}
	}
	_ = os.Remove(WorkTrees(stateDir, graph)) // once empty
}

func taskByID(ts []tasks.Task, id string) (tasks.Task, bool) {
	for _, t := range ts {
		if t.ID == id {
			return t, true
		}
	}
	return tasks.Task{}, false
}
