//go:build temporal

package temporal

import (
	"context"
	"fmt"
	"sync"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/session"
)

// GraphSteps are a task graph's own activities on a worker: the git work the
// local engine's graph does, in the repository's clone on this machine.
type GraphSteps struct {
	// mu serialises the worktree and merge work on the repository: git locks
	// its metadata.
	mu sync.Mutex
}

// WorkTree is the worktree activity: the task's worktree and branch, unless
// they exist (a retried activity finds them).
func (g *GraphSteps) WorkTree(ctx context.Context, in WorkTreeInput) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return session.AddTaskWorkTree(ctx, in.Repo, in.StateDir, in.Graph, in.ID, in.Base)
}

// Commit is the commit activity: the task's work committed on its branch.
func (g *GraphSteps) Commit(ctx context.Context, in CommitInput) error {
	return session.CommitTask(ctx, in.WorkTree, in.Task)
}

// Merge is the merge activity: the done tasks' branches merged back in order,
// a Markdown plan's items ticked, the merged tasks' worktrees and branches
// removed; a conflict is a result, not an error.
func (g *GraphSteps) Merge(ctx context.Context, in MergeInput) (MergeOutput, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out MergeOutput
	warnf := func(format string, args ...any) { out.Warnings = append(out.Warnings, fmt.Sprintf(format, args...)) }
	res, err := session.MergeTasks(ctx, in.Repo, in.Graph, &in.File, in.Order, warnf)
	out.Results = res
	if err != nil {
		out.Err = err.Error()
	}
	var merged []string
	for _, r := range res {
		if r.Merged {
			merged = append(merged, r.ID)
		}
	}
	session.PruneTasks(ctx, in.Repo, in.StateDir, in.Graph, merged, warnf)
	return out, nil
}

// registry is where workflows and activities are registered: a worker, or a
// test environment.
type registry interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

// RegisterGraph registers the graph workflow and the graph activities of g on w.
func RegisterGraph(w registry, g *GraphSteps) {
	w.RegisterWorkflowWithOptions(Graph, workflow.RegisterOptions{Name: WorkflowGraph})
	registerGraphSteps(w, g)
}

// registerGraphSteps registers the graph activities of g on w.
func registerGraphSteps(w registry, g *GraphSteps) {
	w.RegisterActivityWithOptions(g.WorkTree, activity.RegisterOptions{Name: ActivityWorkTree})
	w.RegisterActivityWithOptions(g.Commit, activity.RegisterOptions{Name: ActivityCommit})
	w.RegisterActivityWithOptions(g.Merge, activity.RegisterOptions{Name: ActivityMerge})
}
