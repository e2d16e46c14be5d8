package temporal

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// GraphSteps are a task graph's own activities on a worker: the git work the
// local engine's graph does, in the repository's clone on this machine.
type GraphSteps struct {
	// Steps are the worker's steps: its queue, its clone and the remote
	// the workers' clones share.
	Steps *Steps
}

// WorkTree is the worktree activity: the task's worktree and branch in this
// worker's clone, unless they exist (a retried activity finds them); the
// task's steps come to this worker's queue.
func (g *GraphSteps) WorkTree(ctx context.Context, in WorkTreeInput) (WorkTreeOutput, error) {
	defer alive(ctx)()
	return WorkTreeOutput{Queue: g.Steps.Queue}, ownError(ctx, g.Steps.taskWorkTree(ctx, in), graphAttempts, "agentloop.WorkTree")
}

// taskWorkTree makes the task's worktree and branch in this worker's clone,
// at the task's head (see [Steps.branchAt]), unless they are there.
func (s *Steps) taskWorkTree(ctx context.Context, in WorkTreeInput) error {
	if err := s.branchAt(ctx, in); err != nil {
		return err
	}
	return s.addWorkTree(ctx, in)
}

// branchAt puts the branch of the task of in at in.Head in this worker's
// clone, fetched from the shared remote, when the task's worktree is to be
// made or taken here: it then starts from the task's committed work, wherever
// that was committed, not from the graph's base or from what an older
// worktree here holds (whose commit and push, when the task's run takes no
// step here, would replace the task's branch on the remote). A worktree of
// the task here whose branch is behind is what a worker that left the task
// here held: it is brought to in.Head, its changes discarded; a branch here
// ahead of in.Head is kept. Without a
// remote, the clone's branch is what there is.
func (s *Steps) branchAt(ctx context.Context, in WorkTreeInput) error {
	if in.Head == "" || s.Remote == "" {
		return nil
	}
	t := GraphTask{Repo: in.Repo, StateDir: in.StateDir}.In(s.WorkTree)
	s.git.Lock()
	defer s.git.Unlock()
	branch := tasks.TaskBranch(in.Graph, in.ID)
	if here := gitx.BranchCommit(ctx, t.Repo, branch); here == in.Head || gitx.IsAncestor(ctx, t.Repo, in.Head, here) {
		return nil // at it, or ahead of it (a merged result its gates failed on, moved there by the merge-back)
	}
	if err := gitx.FetchBranch(ctx, t.Repo, s.Remote, branch); err != nil {
		return fmt.Errorf("task %s: fetch its branch, committed on another worker: %w", in.ID, err)
	}
	if got := gitx.BranchCommit(ctx, t.Repo, branch); got != in.Head {
		return fmt.Errorf("task %s: its branch %s on %s is at %q, not at %s where its last commit left it: push that commit there from the clone that has it", in.ID, branch, s.Remote, got, in.Head)
	}
	wt := tasks.TaskWorkTree(t.StateDir, in.Graph, in.ID)
	if _, err := os.Stat(wt); err != nil {
		return nil // made from the branch next
	}
	if err := gitx.Discard(ctx, wt); err != nil {
		return fmt.Errorf("task %s: bring its older worktree here to its branch, committed on another worker: %w", in.ID, err)
	}
	if s.Log != nil {
		s.Log.Warn("the task's older worktree here was brought to its branch, committed on another worker; what it held beyond that was discarded (the run's checkpoints keep its work)",
			"task", in.ID, "worktree", wt, "head", in.Head)
	}
	return nil
}

// Commit is the commit activity: the task's work committed on its branch, and
// the branch pushed to the shared remote when the worker has one. When the
// worker holding the work tree is gone (in.Moved), the work tree is rebuilt
// here first.
func (g *GraphSteps) Commit(ctx context.Context, in CommitInput) (CommitOutput, error) {
	defer alive(ctx)()
	out, err := g.commit(ctx, in)
	return out, ownError(ctx, err, graphAttempts, "agentloop.Commit")
}

func (g *GraphSteps) commit(ctx context.Context, in CommitInput) (CommitOutput, error) {
	_, wt := onClone(g.Steps.WorkTree, in.Repo, in.WorkTree)
	if in.Moved {
		if err := g.rebuild(ctx, in, wt); err != nil {
			return CommitOutput{}, fmt.Errorf("rebuild the work tree of task %s: %w", in.Task.ID, err)
		}
	}
	if err := graph.CommitTask(ctx, wt, in.Task); err != nil {
		return CommitOutput{}, err
	}
	if in.Branch == "" {
		return CommitOutput{}, nil
	}
	out := CommitOutput{Head: gitx.BranchCommit(ctx, wt, in.Branch), Queue: g.Steps.Queue}
	if g.Steps.Remote != "" {
		if err := gitx.ShareBranch(ctx, wt, g.Steps.Remote, in.Branch); err != nil {
			return out, err
		}
		out.Pushed = true
	}
	return out, nil
}

// rebuild makes the task's worktree wt in this worker's clone, unless it
// exists, and restores the run's last checkpoint in it, fetched from the
// shared remote.
func (g *GraphSteps) rebuild(ctx context.Context, in CommitInput, wt string) error {
	r := in.Run
	if r == nil || r.Task == nil {
		return errors.New("the commit does not name the task's run")
	}
	t := r.Task
	if err := g.Steps.taskWorkTree(ctx, t.workTree()); err != nil {
		return err
	}
	if in.Checkpoint == "" {
		return nil // the run left no checkpoint: its work is the branch's
	}
	remote := g.Steps.Remote
	if remote == "" {
		return fmt.Errorf("its last checkpoint %s is in the clone of a worker that is gone; start the workers with --checkpoint-remote REMOTE (a remote their clones share) so that it is pushed there", in.Checkpoint)
	}
	if err := gitx.FetchCheckpoints(ctx, wt, remote, engine.CheckpointRefs(r.Name, r.RunID)); err != nil {
		return err
	}
	return gitx.Restore(ctx, wt, in.Checkpoint)
}

// Merge is the merge activity: the done tasks' branches merged back in order
// by the rule of both engines ([graph.Merger]: a task's required gates, when
// the input names its run, must pass on the merged result; a task merged
// already is recognised from git's ancestry), a Markdown plan's items ticked,
// the merged tasks' worktrees and branches removed; a conflict, a refused
// merge or failing gates are results, not errors. It runs in the graph's
// repository: a worker whose clone is elsewhere merges nothing.
func (g *GraphSteps) Merge(ctx context.Context, in MergeInput) (MergeOutput, error) {
	defer alive(ctx)()
	g.Steps.git.Lock()
	defer g.Steps.git.Unlock()
	out := MergeOutput{Queue: g.Steps.Queue}
	if clone := g.Steps.WorkTree; clone != "" && clone != in.Repo {
		out.Err = fmt.Sprintf("the tasks' branches are left unmerged: the worker of queue %s that took the merge-back holds a clone at %s, not the graph's repository %s; "+
			"start the graph with --merge-queue naming a worker on the machine of %s", out.Queue, clone, in.Repo, in.Repo)
		return out, nil
	}
	warnf := func(format string, args ...any) { out.Warnings = append(out.Warnings, fmt.Sprintf(format, args...)) }
	m := graph.Merger{Repo: in.Repo, StateDir: in.StateDir, Graph: in.Graph, File: &in.File, Warnf: warnf,
		Committed: func(id string) string { return in.Heads[id] }}
	var merged, errs []string
	for _, id := range g.here(ctx, in, warnf) {
		gates, err := g.gates(ctx, in, id)
		var r graph.Merge
		if err == nil {
			r, err = m.Merge(ctx, id, in.Checkpoints[id], gates)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("merge back task %s (branch %s): %v", id, tasks.TaskBranch(in.Graph, id), err))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		out.Merges = append(out.Merges, r)
		out.Results = append(out.Results, tasks.MergeResult{ID: r.ID, Branch: r.Branch, Merged: r.Merged, Conflict: r.Issue == tasks.MergeConflict, Files: r.Files})
		if r.Issue == tasks.MergeRefused {
			errs = append(errs, fmt.Sprintf("task %s is left unmerged: the repository %s has uncommitted changes to %s; commit or stash them, then run the graph again", id, in.Repo, strings.Join(r.Files, ", ")))
		}
		if r.Issue == tasks.MergeGates && g.Steps.Remote != "" && in.Heads[id] != "" {
			// The task's branch holds the merged result now: a worker
			// resuming the task elsewhere starts from it.
			if err := gitx.ShareBranch(ctx, in.Repo, g.Steps.Remote, r.Branch); err != nil {
				warnf("task %s: its branch %s, at the merged result its gates failed on, was not pushed to %s: a worker resuming it elsewhere starts from its work before the merge: %v", id, r.Branch, g.Steps.Remote, err)
			} else if h := gitx.BranchCommit(ctx, in.Repo, r.Branch); h != "" {
				if out.Heads == nil {
					out.Heads = map[string]string{}
				}
				out.Heads[id] = h
			}
		}
		if !r.Merged {
			continue
		}
		merged = append(merged, r.ID)
		if remote := g.Steps.Remote; remote != "" && in.Heads[r.ID] != "" {
			if err := gitx.DeleteRemoteBranch(ctx, in.Repo, remote, r.Branch); err != nil {
				warnf("task %s is merged but its branch %s was kept on %s: %v", r.ID, r.Branch, remote, err)
			}
		}
	}
	out.Err = strings.Join(errs, "; ")
	// The merges are done: their worktrees and branches go even when the
	// activity is cancelled meanwhile.
	after, cancel := graph.Finishing(ctx, 0)
	defer cancel()
	graph.PruneTasks(after, in.Repo, in.StateDir, in.Graph, merged, warnf)
	if remote := g.Steps.Remote; remote != "" && len(merged) > 0 {
		// The tasks started next build on this: a worker's clone fetches it.
		head := gitx.CommitOf(ctx, in.Repo, "HEAD")
		if err := gitx.ShareCommit(ctx, in.Repo, remote, head, MergedBranch(in.Graph)); err != nil {
			warnf("the work merged so far (%s) was not pushed to %s, where the workers' clones fetch what the next tasks start from: %v", head, remote, err)
		}
	}
	return out, nil
}

// MergedBranch is the branch of the shared remote the merge-back of a graph
// pushes the work merged so far to, for the tasks started next on other
// workers' clones to start from.
func MergedBranch(graphName string) string { return "agentloop/" + graphName + ".merged" }

// gates is the check of the required gates of the task id on its merged
// result, from the plan of its run on this worker; nil when the input names
// no run for it (a graph started before) or its plan has no required gate.
func (g *GraphSteps) gates(ctx context.Context, in MergeInput, id string) (graph.GateCheck, error) {
	ref, ok := in.Runs[id]
	if !ok || g.Steps.Plan == nil {
		return nil, nil
	}
	ref = ref.On(g.Steps.WorkTree)
	p, err := g.Steps.Plan(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("rebuild the plan of run %s for its gates: %w", ref.Name, err)
	}
	runDir := state.Store{Root: p.StateDir}.RunDir(ref.Name, ref.RunID)
	return graph.Gates(p.MergeGateRunner(), in.Baselines[id], graph.MergeLogDir(runDir)), nil
}

// here is the tasks of in.Order whose branch in the graph's repository is at
// the commit their work was committed at, fetched from the shared remote when
// it is not; the others are left unmerged, with a warning saying why.
func (g *GraphSteps) here(ctx context.Context, in MergeInput, warnf func(format string, args ...any)) []string {
	var order []string
	for _, id := range in.Order {
		head, branch := in.Heads[id], tasks.TaskBranch(in.Graph, id)
		if tip := gitx.BranchCommit(ctx, in.Repo, branch); head == "" || tip == head || tip == "" && gitx.IsAncestor(ctx, in.Repo, head, "HEAD") {
			// (a branch gone whose commit HEAD holds: merged by an attempt
			// of this step whose worker died before the graph heard of it)
			order = append(order, id)
			continue
		}
		remote := g.Steps.Remote
		if remote == "" {
			warnf("task %s is left unmerged: its branch %s was committed in another worker's clone and this one does not have it; "+
				"start the workers with --checkpoint-remote REMOTE (a remote their clones share) so that it is pushed there, or merge it from that clone by hand", id, branch)
			continue
		}
		err := gitx.FetchBranch(ctx, in.Repo, remote, branch)
		if got := gitx.BranchCommit(ctx, in.Repo, branch); err != nil || got != head {
			warnf("task %s is left unmerged: its branch %s at %s could not be fetched from %s (%v; found %q)", id, branch, head, remote, err, got)
			continue
		}
		order = append(order, id)
	}
	return order
}

// Prune is the prune activity: the merged tasks' worktrees and branches
// removed from this worker's clone, where they were made; a branch is removed
// only at the commit that was merged. What cannot be removed is a warning.
func (g *GraphSteps) Prune(ctx context.Context, in PruneInput) (warnings []string, err error) {
	defer alive(ctx)()
	g.Steps.git.Lock()
	defer g.Steps.git.Unlock()
	t := GraphTask{Repo: in.Repo, StateDir: in.StateDir}.In(g.Steps.WorkTree)
	queue := g.Steps.Queue
	for _, id := range slices.Sorted(maps.Keys(in.Heads)) {
		wt, branch := tasks.TaskWorkTree(t.StateDir, in.Graph, id), tasks.TaskBranch(in.Graph, id)
		if _, err := os.Stat(wt); err == nil {
			if err := gitx.RemoveWorktree(ctx, t.Repo, wt, false); err != nil {
				warnings = append(warnings, fmt.Sprintf("task %s is merged but its worktree %s was kept on the worker of queue %s: %v", id, wt, queue, err))
				continue
			}
		}
		if head := gitx.BranchCommit(ctx, t.Repo, branch); head != "" && head == in.Heads[id] {
			if err := gitx.DeleteBranch(ctx, t.Repo, branch); err != nil {
				warnings = append(warnings, fmt.Sprintf("task %s is merged but its branch was kept on the worker of queue %s: %v", id, queue, err))
			}
		} else if head != "" {
			warnings = append(warnings, fmt.Sprintf("task %s is merged but its branch %s on the worker of queue %s is at %s, not at the merged %s: kept", id, branch, queue, head, in.Heads[id]))
		}
	}
	_ = os.Remove(tasks.WorkTrees(t.StateDir, in.Graph)) // once empty
	return warnings, nil
}

// alive tells the server the activity's worker is alive (its heartbeat, when
// the activity has a heartbeat timeout) until the returned stop is called: a
// worker lost part way is found out within the timeout, and the activity is
// tried again on another.
func alive(ctx context.Context) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	atWork, stop := heartbeat(ctx, activity.GetInfo(ctx).HeartbeatTimeout, nil)
	atWork()
	return stop
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
	w.RegisterActivityWithOptions(g.Prune, activity.RegisterOptions{Name: ActivityPrune})
}
