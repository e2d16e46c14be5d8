package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/ui"
)

// runTask runs one task's loop in its worktree, then merges its work back.
// The worktree is made from the repository's HEAD when the task starts: its
// dependencies are merged by then, so it builds on their work.
func (g *graphRun) runTask(ctx context.Context, t tasks.Task) (tasks.Outcome, error) {
	br := tasks.TaskBranch(g.name, t.ID)
	g.gitMu.Lock()
	err := graph.AddTaskWorkTree(ctx, g.repo, g.stateDir, g.name, t.ID, gitx.CommitOf(ctx, g.repo, "HEAD"))
	g.gitMu.Unlock()
	if err != nil {
		return tasks.Outcome{}, err
	}
	p, err := plan.ForTask(g.cfg, g.stateDir, g.name, t, g.o.Getenv, g.o.Verbose)
	if err != nil {
		return tasks.Outcome{}, err
	}
	p.Args = g.st.Args
	screen := ui.New(ui.Options{Out: g.pr.Progress(g.o.JSON), Now: g.pr.Now, Quiet: !g.o.Verbose, JSON: g.o.JSON, Prefix: t.ID + ": ", Task: t.ID})
	s, err := Open(g.pr, p, screen, g.o.Log, false)
	if err != nil {
		return tasks.Outcome{}, err
	}
	s.graph, s.task = g.name, t.ID
	g.capToGlobal(p, s.st.Spend.Total())
	var runErr error
	if graph.RunOver(s.st) {
		s.Close()
		// Its gates failed on the merged result and no guidance came since:
		// it stays escalated, its merge not tried again.
		if prior := g.recorded(t.ID); graph.AwaitsGuidance(s.st, prior) {
			return prior, nil
		}
	} else {
		_, runErr = s.Run(ctx)
	}
	// The task's work is committed on its branch whenever the task is found
	// ended, not only right after its loop: a crash between the loop's end and
	// the commit must not leave the work out of the merge.
	g.commit(ctx, t, screen)
	o := graph.OutcomeOf(s.st, br)
	if runErr != nil || ctx.Err() != nil || !o.State.Done() {
		return o, runErr
	}
	return g.merge(ctx, t, o, p, s.st)
}

// commit commits the work of the task t, whose loop ended, on its branch,
// even once a signal stopped the graph, for [graph.Finishing]'s grace; what
// it could not commit is a warning on screen that says where the work is
// and what to do.
func (g *graphRun) commit(ctx context.Context, t tasks.Task, screen *ui.Printer) {
	wt := tasks.TaskWorkTree(g.stateDir, g.name, t.ID)
	fctx, cancel := graph.Finishing(ctx, g.grace)
	defer cancel()
	err := graph.CommitTask(fctx, wt, t)
	if err == nil {
		return
	}
	if ge, ok := errors.AsType[*graph.GraceError](context.Cause(fctx)); ok {
		screen.Warnf("the work of task %s is not committed on its branch %s: %v (a hook or a lock held it), and was stopped: the work stays in %s. "+
			"End what holds git there (a git process, a leftover index.lock), then run %s again: it commits the work and merges it",
			t.ID, tasks.TaskBranch(g.name, t.ID), ge, relTo(g.repo, wt), graph.Commands{TaskFile: g.o.TaskFile}.Run())
		return
	}
	screen.Warnf("commit the task's work: %v", err)
}

// merge merges the work of the task t, whose loop ended done (o, in st), back
// into the repository now, one task at a time, if its required gates pass on
// the merged result; the graph's state records it at once, then the task's
// worktree and branch are removed. Not merged, the task is escalated (o says
// why) and its dependents wait.
func (g *graphRun) merge(ctx context.Context, t tasks.Task, o tasks.Outcome, p *plan.Plan, st *state.State) (tasks.Outcome, error) {
	g.mergeMu.Lock()
	defer g.mergeMu.Unlock()
	m := graph.Merger{Repo: g.repo, StateDir: g.stateDir, Graph: g.name, File: g.file, Git: &g.gitMu, Warnf: g.out.Warnf, Grace: g.grace}
	logDir := graph.MergeLogDir(state.Store{Root: g.stateDir}.RunDir(p.Name, st.RunID))
	r, err := m.Merge(ctx, t.ID, graph.Verified(st), graph.Gates(p.MergeGateRunner(), st.Baseline, logDir))
	if err != nil {
		return o, err
	}
	o = r.Outcome(o)
	if !r.Merged {
		g.tellUnmerged(ctx, t, o, st)
		if r.Issue == tasks.MergeGates {
			g.out.Warnf("task %s is not merged: %s (logs: %s)", t.ID, r.Gates, relTo(g.repo, logDir))
		}
		return o, nil
	}
	g.record(t.ID, o, true)
	if r.Already {
		g.out.Linef("Merged task %s (branch %s): its work is in HEAD already", t.ID, r.Branch)
	} else {
		g.out.Linef("Merged task %s (branch %s)", t.ID, r.Branch)
	}
	// The merge is recorded: its worktree and branch go even when a signal
	// stops the graph meanwhile (a kill leaves them to the next run's start).
	after, cancel := graph.Finishing(ctx, g.grace)
	defer cancel()
	g.gitMu.Lock()
	graph.PruneTasks(after, g.repo, g.stateDir, g.name, []string{t.ID}, g.out.Warnf)
	g.gitMu.Unlock()
	return o, nil
}

// recorded is the outcome of the task id the graph's state holds.
func (g *graphRun) recorded(id string) tasks.Outcome {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.st.Outcomes[id]
}

func (g *graphRun) finished(t tasks.Task, o tasks.Outcome) {
	g.record(t.ID, o, false)
	line := graph.TaskLine(t.ID, o)
	if o.State.Done() {
		g.out.Linef("%s", line)
		return
	}
	g.out.Warnf("%s", line)
}

// budget is the global budget over every task of the graph, as the decision
// engine judges it before a task starts.
func (g *graphRun) budget() (bool, string) {
	if !graph.HasBudget(g.file.Budget) {
		return false, "" // nothing to count: the states are not read
	}
	return graph.GlobalBudget(g.file.Budget, g.spent())
}

// spent is what every task of the graph has spent so far (an unreadable state
// file is left out, not a reason to ignore the budget).
func (g *graphRun) spent() budget.Spent {
	states, _ := state.Store{Root: g.stateDir}.List()
	var u evidence.Usage
	for _, st := range states {
		if strings.HasPrefix(st.Name, g.name+"-") {
			u = u.Add(st.Spend.Total())
		}
	}
	return u.Spent(0, 0)
}

// capToGlobal bounds a task's own cost and token limits by what is left of the
// graph's budget, so one task cannot spend what the others were to have.
func (g *graphRun) capToGlobal(p *plan.Plan, own evidence.Usage) {
	if graph.HasBudget(g.file.Budget) {
		p.Proc.Limits.Limits = graph.CapToGraph(p.Proc.Limits.Limits, g.file.Budget, g.spent(), own)
	}
}

// commands are how the commands the person is told are written.
func (g *graphRun) commands(ctx context.Context) graph.Commands {
	return graph.Commands{TaskFile: g.o.TaskFile, Into: gitx.CurrentBranch(ctx, g.repo)}
}

// keptAt says where the work of the task id is kept, when its worktree is
// there: it stays for a person to look at or resume.
func (g *graphRun) keptAt(id string) string {
	wt := tasks.TaskWorkTree(g.stateDir, g.name, id)
	if _, err := os.Stat(wt); err != nil {
		return ""
	}
	return fmt.Sprintf("worktree %s, branch %s", relTo(g.repo, wt), tasks.TaskBranch(g.name, id))
}

// relTo is path relative to repo when it is inside it.
func relTo(repo, path string) string {
	if r, err := filepath.Rel(repo, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}
