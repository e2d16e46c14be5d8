package graph

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/tasks"
)

// ErrNotRepo says that a task graph cannot run outside a git repository.
var ErrNotRepo = errors.New("a task graph runs each task in its own git worktree: run it inside a git repository with at least one commit")

// ErrNoCommit says that a task graph's repository has no commit to start its
// tasks' branches from.
var ErrNoCommit = errors.New("a task graph starts its tasks' branches from the current commit: make a first commit")

// CheckRepo says why a task graph cannot run in repo ([ErrNotRepo]), if it
// cannot. Whether repo is a git repository is a fact of the folder, asked
// even when a signal has come: a graph interrupted as it starts ends as
// interrupted, not as a folder outside git.
func CheckRepo(ctx context.Context, repo string) error {
	if !gitx.IsRepo(context.WithoutCancel(ctx), repo) {
		return ErrNotRepo
	}
	return nil
}

// Base is the commit the tasks' branches of a graph started in repo start
// from: its HEAD's, for clones of the repository elsewhere to start from the
// same ([ErrNoCommit] when there is none), asked even when a signal has come
// (see [CheckRepo]).
func Base(ctx context.Context, repo string) (string, error) {
	c := gitx.CommitOf(context.WithoutCancel(ctx), repo, "HEAD")
	if c == "" {
		return "", ErrNoCommit
	}
	return c, nil
}

// AddTaskWorkTree creates the worktree of the task id of the graph on its
// branch from base, unless it exists. Calls on one repository must not run at
// once (git locks its metadata).
func AddTaskWorkTree(ctx context.Context, repo, stateDir, graph, id, base string) error {
	wt := tasks.TaskWorkTree(stateDir, graph, id)
	if _, err := os.Stat(wt); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := gitx.AddWorktree(ctx, repo, wt, tasks.TaskBranch(graph, id), base); err != nil {
		return fmt.Errorf("task %s: create its worktree: %w", id, err)
	}
	return nil
}

// CommitTask commits the work of the task t in its worktree wt on its branch.
func CommitTask(ctx context.Context, wt string, t tasks.Task) error {
	return gitx.Commit(ctx, wt, fmt.Sprintf("agentloop: task %s: %s", t.ID, firstLine(t.Text())))
}
