package graph

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/tasks"
)

// GateCheck runs a task's required gates in the work tree dir, which holds
// the merged result: ok when every one passes, else summary says which fail
// and how. An error is a gate that could not be run at all.
type GateCheck func(ctx context.Context, dir string) (ok bool, summary string, err error)

// Merge is how the work of one task was merged back, or why it was not.
type Merge struct {
	ID     string
	Branch string
	Merged bool // merged now, or found merged already
	// Already: git's ancestry says the branch was merged before (a process
	// killed after the merge and before the graph's state recorded it).
	Already bool
	Head    string           // the repository's HEAD after the merge
	Issue   tasks.MergeIssue // why it was not merged
	// Files are the files a conflict is in, or the tracked files with
	// uncommitted changes in the repository's work tree (a refused merge).
	Files []string
	Gates string // the required gates that fail on the merged result, and how
}

// Outcome is the task's outcome o once its merge m is known: unchanged when it
// merged, else escalated, saying why and naming the files or gates.
func (m Merge) Outcome(o tasks.Outcome) tasks.Outcome {
	if m.Merged {
		return o
	}
	o.State, o.Unmerged = tasks.StateEscalated, m.Issue
	switch m.Issue {
	case tasks.MergeConflict:
		o.Conflicts = m.Files
		o.Reason = fmt.Sprintf("merging branch %s conflicts in %s: resolve by hand, then resume", m.Branch, strings.Join(m.Files, ", "))
	case tasks.MergeGates:
		o.Reason = "its required gates fail once merged with the work merged before it: " + m.Gates
	case tasks.MergeRefused:
		o.Reason = "not merged: the repository's work tree has uncommitted changes to " + strings.Join(m.Files, ", ")
	}
	return o
}

// Merger merges a graph's tasks back into its repository, one at a time: a
// task's branch merges only if its required gates pass on the merged result.
// The merged result is made in the task's own worktree (the repository's HEAD
// with the task's branch merged in, on a detached HEAD) and checked there;
// then the task's branch is set to it and the repository's branch fast-forwards
// to it, so what was checked is exactly what is merged. When the gates fail,
// the task's worktree and branch keep the merged result, for the task's loop
// to fix when it is resumed with guidance.
type Merger struct {
	Repo, StateDir, Graph string
	File                  *tasks.File
	// Git, when set, is held while git works on the repository's metadata
	// (not while the gates run): the graph's other git work takes it too.
	Git   sync.Locker
	Warnf func(format string, args ...any)
	// Committed, when set, is the commit a task's branch was left at where
	// its run ended, maybe in another worker's clone ("" when not known).
	// Known, what this clone's worktree of the task holds beyond its branch
	// is what a worker that died there left, and is discarded (otherwise
	// such changes stop the merge, as they would be lost); and a task whose
	// branch is gone while that commit is in HEAD's ancestry was merged, its
	// branch removed, by an earlier attempt whose caller never heard of it.
	Committed func(id string) string
	// Grace is how long the work that follows a merge may go on once a
	// signal stops the graph ([Finishing]; 0: [tasks.DefaultStopGrace]).
	Grace time.Duration
}

// Merge merges the work of the task id back. A task whose branch git finds
// already merged is recognised as merged (Already). verified is the
// checkpoint on which the task's loop found its required gates passing
// ([Verified]; "" for none): the gates are not run again only on a merged
// result of that very tree (nothing merged since the task branched, its
// branch where its loop left it). gates is nil for a task without required
// gates. An error is a failure of git or of the gates themselves; the
// repository is left as it was.
func (m *Merger) Merge(ctx context.Context, id, verified string, gates GateCheck) (Merge, error) {
	r := Merge{ID: id, Branch: tasks.TaskBranch(m.Graph, id)}
	unlock := m.lock()
	defer func() { unlock() }()
	wt := tasks.TaskWorkTree(m.StateDir, m.Graph, id)
	if _, err := os.Stat(wt); err == nil {
		if err := m.ready(ctx, wt, id, r.Branch); err != nil {
			return r, fmt.Errorf("task %s: %w", id, err)
		}
	}
	tip := gitx.BranchCommit(ctx, m.Repo, r.Branch)
	head := gitx.CommitOf(ctx, m.Repo, "HEAD")
	if tip == "" {
		if c := m.committed(id); c != "" && gitx.IsAncestor(ctx, m.Repo, c, head) {
			r.Merged, r.Already, r.Head = true, true, head
			return r, nil
		}
		return r, fmt.Errorf("task %s: its branch %s is gone, so its work cannot be merged", id, r.Branch)
	}
	base := gitx.MergeBase(ctx, m.Repo, tip, head)
	if base == tip {
		r.Merged, r.Already, r.Head = true, true, head
		m.tick(ctx, id)
		return r, nil
	}
	modified, err := gitx.ModifiedFiles(ctx, m.Repo)
	if err != nil {
		return r, fmt.Errorf("task %s: %w", id, err)
	}
	if len(modified) > 0 {
		r.Issue, r.Files = tasks.MergeRefused, modified
		return r, nil
	}
	merged := tip
	if base != head {
		// Work was merged since the task branched: the merged result is a
		// merge commit of HEAD and the task's branch, made without a work
		// tree (or, with a git too old for that, in the task's worktree).
		c, files, err := gitx.MergeCommit(ctx, m.Repo, head, tip, "Merge branch '"+r.Branch+"'")
		if errors.Is(err, gitx.ErrNoMergeTree) {
			c, files, err = m.combineIn(ctx, wt, head, r.Branch)
		}
		if err != nil {
			return r, fmt.Errorf("task %s: %w", id, err)
		}
		if len(files) > 0 {
			r.Issue, r.Files = tasks.MergeConflict, files
			return r, nil
		}
		merged = c
	}
	if gates != nil && !m.sameTree(ctx, merged, verified) {
		// The gates run on the merged result in the task's worktree, its
		// branch moved there: failing, the branch keeps it, and the task's
		// loop, resumed, starts from what failed (and a merge tried again
		// finds there a tree its loop never passed, so runs them again).
		if err := m.checkOut(ctx, wt, r.Branch, merged); err != nil {
			return r, fmt.Errorf("task %s: %w", id, err)
		}
		unlock()
		ok, summary, err := gates(ctx, wt)
		unlock = m.lock()
		if err != nil {
			return r, fmt.Errorf("task %s: run its gates on the merged result: %w", id, err)
		}
		if !ok {
			r.Issue, r.Gates = tasks.MergeGates, summary
			return r, nil
		}
	}
	if merged != tip {
		if err := gitx.FastForward(ctx, m.Repo, merged); err != nil {
			return r, fmt.Errorf("task %s: merge its branch %s: %w", id, r.Branch, err)
		}
	} else {
		conflict, files, err := gitx.Merge(ctx, m.Repo, r.Branch)
		if errors.Is(err, gitx.ErrDirty) {
			r.Issue, r.Files = tasks.MergeRefused, nil
			return r, nil
		}
		if err != nil {
			return r, fmt.Errorf("task %s: %w", id, err)
		}
		if conflict { // cannot happen: HEAD is an ancestor of the branch
			r.Issue, r.Files = tasks.MergeConflict, files
			return r, nil
		}
	}
	r.Merged, r.Head = true, gitx.CommitOf(ctx, m.Repo, "HEAD")
	m.tick(ctx, id)
	return r, nil
}

// sameTree says whether the commit merged holds the tree of the checkpoint
// verified; an unknown one (none, or not in this repository) is not it.
func (m *Merger) sameTree(ctx context.Context, merged, verified string) bool {
	if verified == "" {
		return false
	}
	t := gitx.TreeOf(ctx, m.Repo, merged)
	return t != "" && t == gitx.TreeOf(ctx, m.Repo, verified)
}

// checkOut puts the task's worktree wt (made from its branch when it is
// gone) on its branch at the merged result, which contains the branch.
func (m *Merger) checkOut(ctx context.Context, wt, branch, merged string) error {
	if _, err := os.Stat(wt); errors.Is(err, os.ErrNotExist) {
		if err := gitx.AddWorktree(ctx, m.Repo, wt, branch, ""); err != nil {
			return err
		}
	}
	if gitx.CommitOf(ctx, wt, "HEAD") == merged {
		return nil
	}
	return gitx.FastForward(ctx, wt, merged)
}

// combineIn merges branch into head in the task's worktree wt, for a git that
// cannot merge without a work tree: on a detached HEAD, then the branch set
// to the result; a conflict leaves the worktree as it was.
func (m *Merger) combineIn(ctx context.Context, wt, head, branch string) (string, []string, error) {
	if _, err := os.Stat(wt); errors.Is(err, os.ErrNotExist) {
		if err := gitx.AddWorktree(ctx, m.Repo, wt, branch, ""); err != nil {
			return "", nil, err
		}
	}
	if err := gitx.Detach(ctx, wt, head); err != nil {
		return "", nil, err
	}
	conflict, files, err := gitx.Merge(ctx, wt, branch)
	if err != nil || conflict {
		back := gitx.SwitchBranch(ctx, wt, branch, "")
		if err = errors.Join(err, back); err != nil {
			return "", nil, fmt.Errorf("merge %s into its worktree: %w", branch, err)
		}
		return "", files, nil
	}
	merged := gitx.CommitOf(ctx, wt, "HEAD")
	return merged, nil, gitx.SwitchBranch(ctx, wt, branch, merged)
}

// ready puts the task's worktree wt on its branch with no merge in progress
// (a process killed while merging leaves one). What the worktree holds
// beyond its branch is not the task's work to merge: the engines commit that
// before they merge (on a fleet, a worktree left in this clone by a worker
// that died may be older than the branch fetched).
func (m *Merger) ready(ctx context.Context, wt, id, branch string) error {
	if err := gitx.AbortMerge(ctx, wt); err != nil {
		return err
	}
	changed, err := gitx.ChangedFiles(ctx, wt)
	if err != nil {
		return err
	}
	if len(changed) > 0 {
		if m.committed(id) == "" {
			return fmt.Errorf("its worktree %s holds changes that are not on its branch %s (%s): commit them there, or discard them, then run the graph again",
				relTo(m.Repo, wt), branch, strings.Join(cutList(changed, 5), ", "))
		}
		m.warnf("task %s: its worktree %s in this clone held changes older than its branch, committed on another worker (%s); they were discarded", id, relTo(m.Repo, wt), strings.Join(cutList(changed, 5), ", "))
		if err := gitx.Discard(ctx, wt); err != nil {
			return err
		}
	}
	if gitx.CurrentBranch(ctx, wt) != branch {
		return gitx.SwitchBranch(ctx, wt, branch, "")
	}
	return nil
}

// cutList is at most n of the items, the rest counted.
func cutList(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(items[:n:n], fmt.Sprintf("and %d more", len(items)-n))
}

func (m *Merger) committed(id string) string {
	if m.Committed == nil {
		return ""
	}
	return m.Committed(id)
}

func (m *Merger) lock() (unlock func()) {
	if m.Git == nil {
		return func() {}
	}
	m.Git.Lock()
	return m.Git.Unlock
}

func (m *Merger) warnf(format string, args ...any) {
	if m.Warnf != nil {
		m.Warnf(format, args...)
	}
}

// tick marks a merged task's item done in a Markdown plan and commits the plan,
// so the work tree stays clean for the next merge; the merge is done, so a
// signal does not cut it ([Finishing]).
func (m *Merger) tick(ctx context.Context, id string) {
	ctx, cancel := Finishing(ctx, m.Grace)
	defer cancel()
	file := m.File
	if file == nil || !strings.HasSuffix(strings.ToLower(file.Path), ".md") {
		return
	}
	t, ok := taskByID(file.Tasks, id)
	if !ok || t.Pos.Line == 0 {
		return
	}
	if err := tasks.TickMarkdown(file.Path, t.Pos.Line); err != nil {
		m.warnf("tick %s in %s: %v", id, file.Path, err)
		return
	}
	if err := gitx.Commit(ctx, m.Repo, fmt.Sprintf("agentloop: task %s done (%s)", id, filepath.Base(file.Path))); err != nil {
		m.warnf("commit the ticked plan: %v", err)
	}
}

// PruneMerged removes what the merged tasks of the graph left in the
// repository: the worktree or the branch of a task whose run was cut short
// after its merge (a kill; a signal to a build before [Finishing]), which no
// later run would remove, a merged task never running again. It runs git only
// for the tasks that left something; what cannot be removed is a warning.
func PruneMerged(ctx context.Context, repo, stateDir, graph string, merged []string, warnf func(format string, args ...any)) {
	if len(merged) == 0 {
		return
	}
	left := map[string]bool{}
	entries, _ := os.ReadDir(tasks.WorkTrees(stateDir, graph))
	for _, e := range entries {
		left[e.Name()] = e.IsDir()
	}
	prefix := tasks.TaskBranch(graph, "")
	branches, err := gitx.Branches(ctx, repo, prefix)
	if err != nil {
		warnf("the branches of the merged tasks of graph %s are not removed: %v", graph, err)
	}
	for _, b := range branches {
		left[strings.TrimPrefix(b, prefix)] = true
	}
	var ids []string
	for _, id := range merged {
		if left[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		PruneTasks(ctx, repo, stateDir, graph, ids, warnf)
	}
}

// PruneTasks removes the worktrees and branches of the merged tasks of the
// graph, then the graph's worktree folder once empty; what could not be
// removed is a warning.
func PruneTasks(ctx context.Context, repo, stateDir, graph string, merged []string, warnf func(format string, args ...any)) {
	for _, id := range merged {
		wt := tasks.TaskWorkTree(stateDir, graph, id)
		if _, err := os.Stat(wt); err == nil {
			if err := gitx.RemoveWorktree(ctx, repo, wt, false); err != nil {
				warnf("task %s is merged but its worktree %s was kept: %v", id, relTo(repo, wt), err)
				continue
			}
		}
		if err := gitx.DeleteMergedBranch(ctx, repo, tasks.TaskBranch(graph, id)); err != nil {
			warnf("task %s is merged but its branch was kept: %v", id, err)
		}
	}
	_ = os.Remove(tasks.WorkTrees(stateDir, graph)) // once empty
}

func taskByID(ts []tasks.Task, id string) (tasks.Task, bool) {
	for _, t := range ts {
		if t.ID == id {
			return t, true
		}
	}
	return tasks.Task{}, false
}
