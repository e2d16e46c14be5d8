package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/ui"
)

// GraphOptions are what a task graph is run with.
type GraphOptions struct {
	TaskFile string         // tasks.yaml or a Markdown checklist
	Config   *config.Config // the loaded configuration, flags applied
	Getenv   func(string) string
	Parallel int // how many tasks run at once; 0: the task file's, else 1
	Verbose  bool
	JSON     bool // progress as JSON lines
	Log      *slog.Logger
	// Host is what the preflight reads of the machine (PATH, environment,
	// root); its zero value checks no program on PATH.
	Host agent.Host
}

// GraphResult is how a task graph ended.
type GraphResult struct {
	Outcomes        map[string]tasks.Outcome
	Interrupted     bool
	BudgetExhausted bool // the global budget stopped tasks from starting
}

// RunGraph runs a task graph: every task a loop of its own in its own git
// worktree and branch, independent ones in parallel, merged back in dependency
// order. The work tree is the repository's (pr.Getwd).
func RunGraph(ctx context.Context, pr Process, o GraphOptions) (GraphResult, error) {
	file, err := tasks.Load(o.TaskFile)
	if err != nil {
		return GraphResult{}, &UsageError{Err: err}
	}
	deps, err := tasks.NewGraph(file.Tasks)
	if err != nil {
		return GraphResult{}, &UsageError{Err: err}
	}
	repo, err := pr.Getwd()
	if err != nil {
		return GraphResult{}, err
	}
	if err := graph.CheckRepo(ctx, repo); err != nil {
		return GraphResult{}, &UsageError{Err: err}
	}
	name := graph.Name(o.TaskFile)
	g := &graphRun{pr: pr, o: o, repo: repo, base: "HEAD", name: name, stateDir: plan.StateDir(o.Config, repo), file: file,
		out: ui.New(ui.Options{Out: pr.Progress(o.JSON), Now: pr.Now, JSON: o.JSON})}
	if err := g.load(); err != nil {
		return GraphResult{}, err
	}
	// Every agent and gate a task to run may start is checked before any task
	// starts, as a single run checks its own before the baseline: a missing
	// program is found now, with no worktree, branch or state made.
	if _, err := g.preflight(); err != nil {
		return GraphResult{}, err
	}
	parallel := o.Parallel
	if parallel == 0 {
		parallel = max(file.Parallel, 1)
	}
	g.out.Linef("Starting task graph %s: %d tasks, up to %d in parallel", name, len(file.Tasks), max(parallel, 1))
	sched := tasks.Scheduler{
		Parallel: parallel,
		Run:      g.runTask,
		Budget:   g.budget,
		Started:  func(t tasks.Task) { g.out.Linef("%s", graph.TaskStartLine(t)) },
		Finished: g.finished,
	}
	prior := map[string]tasks.Outcome{}
	for id, o := range g.st.Outcomes {
		if o.State.Done() {
			prior[id] = o
		}
	}
	outcomes, execErr := sched.Execute(ctx, deps, prior)
	g.mu.Lock()
	g.st.Outcomes = outcomes
	g.mu.Unlock()
	if ctx.Err() == nil {
		g.mergeBack(ctx, outcomes)
		g.prune(ctx)
	}
	g.save()
	g.summary(outcomes)
	g.kept(outcomes)
	res := GraphResult{Outcomes: outcomes, BudgetExhausted: errors.Is(execErr, tasks.ErrBudgetExhausted)}
	switch {
	case ctx.Err() != nil:
		g.out.Linef("Interrupted. Run the same command again to resume the graph.")
		res.Interrupted = true
		return res, nil
	case execErr != nil && !res.BudgetExhausted:
		return res, execErr
	}
	return res, nil
}

type graphRun struct {
	pr       Process
	o        GraphOptions
	repo     string
	base     string
	name     string
	stateDir string
	file     *tasks.File
	out      *ui.Printer

	mu sync.Mutex
	st graph.State
	// gitMu serialises worktree creation: git locks the repository's metadata.
	gitMu sync.Mutex
}

func (g *graphRun) load() error {
	st, found, err := graph.LoadState(g.stateDir, g.name, g.file.Path, g.pr.Now())
	if _, ok := errors.AsType[*graph.CorruptStateError](err); ok {
		g.out.Warnf("%v", err)
	} else if err != nil {
		return err
	} else if found {
		g.out.Linef("Resuming task graph %s", g.name)
	}
	g.st = st
	return nil
}

func (g *graphRun) save() {
	g.mu.Lock()
	st := g.st
	st.Outcomes = maps.Clone(g.st.Outcomes)
	st.Merged = slices.Clone(g.st.Merged)
	g.mu.Unlock()
	if err := graph.SaveState(g.stateDir, g.name, st); err != nil {
		g.out.Warnf("task graph state not saved: %v", err)
	}
}

// TaskPlan is one task of a graph resolved to the plan it runs with.
type TaskPlan struct {
	Task  tasks.Task
	Title string // the first line of the task's text
	Plan  *plan.Plan
}

// CheckGraph resolves every task of a task file still to run, as [RunGraph]
// would, and checks that their agents and gates can start; it runs and
// writes nothing (run --dry-run --tasks). The error is a *UsageError for a
// task file or configuration mistake, else the joined preflight errors, each
// naming its tasks.
func CheckGraph(ctx context.Context, pr Process, o GraphOptions) ([]TaskPlan, error) {
	file, err := tasks.Load(o.TaskFile)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	if _, err := tasks.NewGraph(file.Tasks); err != nil {
		return nil, &UsageError{Err: err}
	}
	repo, err := pr.Getwd()
	if err != nil {
		return nil, err
	}
	name := graph.Name(o.TaskFile)
	g := &graphRun{pr: pr, o: o, repo: repo, name: name, stateDir: plan.StateDir(o.Config, repo), file: file,
		out: ui.New(ui.Options{Out: io.Discard})}
	if err := g.load(); err != nil {
		return nil, err
	}
	return g.preflight()
}

// preflight resolves the tasks still to run in the repository (their
// worktrees do not exist yet and start from its HEAD) and checks each plan's
// agents and gates; tasks that fail the same way are named together.
func (g *graphRun) preflight() ([]TaskPlan, error) {
	var plans []TaskPlan
	var order []string
	failed := map[string][]string{} // error text → task ids
	errs := map[string]error{}
	for _, t := range g.file.Tasks {
		if t.Done || g.st.Outcomes[t.ID].State.Done() {
			continue
		}
		p, err := plan.Resolve(g.o.Config, t.Procedure, plan.Options{WorkDir: g.repo, Getenv: g.o.Getenv, Verbose: g.o.Verbose})
		if err == nil {
			p.Name, p.StateDir = graph.TaskRunName(g.name, t.ID), g.stateDir
			err = plan.ApplyTask(p, t)
		}
		if err != nil {
			return nil, &UsageError{Err: fmt.Errorf("task %s: %w", t.ID, err)}
		}
		plans = append(plans, TaskPlan{Task: t, Title: graph.TaskTitle(t), Plan: p})
		err = p.Preflight(g.o.Host)
		var each []error
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			each = j.Unwrap()
		} else if err != nil {
			each = []error{err}
		}
		for _, e := range each {
			key := e.Error()
			if _, seen := errs[key]; !seen {
				order = append(order, key)
				errs[key] = e
			}
			failed[key] = append(failed[key], t.ID)
		}
	}
	var all []error
	for _, key := range order {
		ids := failed[key]
		label := "task " + ids[0]
		if len(ids) > 1 {
			label = "tasks " + strings.Join(ids, ", ")
		}
		all = append(all, fmt.Errorf("%s: %w", label, errs[key]))
	}
	return plans, errors.Join(all...)
}

// runTask runs one task's loop in its worktree.
func (g *graphRun) runTask(ctx context.Context, t tasks.Task) (tasks.Outcome, error) {
	wt := graph.TaskWorkTree(g.stateDir, g.name, t.ID)
	br := graph.TaskBranch(g.name, t.ID)
	g.gitMu.Lock()
	err := graph.AddTaskWorkTree(ctx, g.repo, g.stateDir, g.name, t.ID, g.base)
	g.gitMu.Unlock()
	if err != nil {
		return tasks.Outcome{}, err
	}
	p, err := graph.TaskPlan(g.o.Config, g.stateDir, g.name, t, g.o.Getenv, g.o.Verbose)
	if err != nil {
		return tasks.Outcome{}, err
	}
	screen := ui.New(ui.Options{Out: g.pr.Progress(g.o.JSON), Now: g.pr.Now, Quiet: !g.o.Verbose, JSON: g.o.JSON, Prefix: t.ID + ": ", Task: t.ID})
	s, err := Open(g.pr, p, screen, g.o.Log, false)
	if err != nil {
		return tasks.Outcome{}, err
	}
	g.capToGlobal(p, s.st.Spend.Usage.Add(s.st.Spend.Reviewer))
	// The task's work is committed on its branch whenever the task is found
	// ended, not only right after its loop: a crash between the loop's end and
	// the commit must not leave the work out of the merge.
	commit := func() {
		if err := graph.CommitTask(context.WithoutCancel(ctx), wt, t); err != nil {
			screen.Warnf("commit the task's work: %v", err)
		}
	}
	if graph.RunOver(s.st) {
		s.Close()
		commit()
		return graph.OutcomeOf(s.st, br), nil
	}
	_, runErr := s.Run(ctx)
	commit()
	return graph.OutcomeOf(s.st, br), runErr
}

func (g *graphRun) finished(t tasks.Task, o tasks.Outcome) {
	g.mu.Lock()
	g.st.Outcomes[t.ID] = o
	g.mu.Unlock()
	g.save()
	line := graph.TaskLine(t.ID, o)
	if o.State.Done() {
		g.out.Linef("%s", line)
		return
	}
	g.out.Warnf("%s", line)
}

// budget is the global budget over every task of the graph, as the decision
// engine judges it before a task starts.
func (g *graphRun) budget() (bool, string) { return graph.GlobalBudget(g.file.Budget, g.spent()) }

// spent is what every task of the graph has spent so far (an unreadable state
// file is left out, not a reason to ignore the budget).
func (g *graphRun) spent() budget.Spent {
	states, _ := state.Store{Root: g.stateDir}.List()
	var u evidence.Usage
	for _, st := range states {
		if strings.HasPrefix(st.Name, g.name+"-") {
			u = u.Add(st.Spend.Usage).Add(st.Spend.Reviewer)
		}
	}
	return budget.SpentFrom(u, 0, 0)
}

// capToGlobal bounds a task's own cost and token limits by what is left of the
// graph's budget, so one task cannot spend what the others were to have.
func (g *graphRun) capToGlobal(p *plan.Plan, own evidence.Usage) {
	p.Proc.Limits.Limits = graph.CapToGraph(p.Proc.Limits.Limits, g.file.Budget, g.spent(), own)
}

// mergeBack merges the branches of succeeded tasks into the current branch in
// the order they finished (dependencies first). A conflict turns that task into
// an escalation; nothing is resolved silently and the tree is left as it was.
func (g *graphRun) mergeBack(ctx context.Context, out map[string]tasks.Outcome) {
	order := tasks.MergeOrder(out, g.st.Merged)
	if len(order) == 0 {
		return
	}
	results, err := graph.MergeTasks(ctx, g.repo, g.name, g.file, order, g.out.Warnf)
	for _, r := range results {
		if r.Merged {
			g.st.Merged = append(g.st.Merged, r.ID)
			g.out.Linef("Merged task %s (branch %s)", r.ID, r.Branch)
		} else {
			g.out.Warnf("task %s: merging branch %s conflicts in %s; left unmerged for you to resolve", r.ID, r.Branch, strings.Join(r.Files, ", "))
		}
	}
	tasks.ApplyMerges(out, results)
	if err != nil {
		g.out.Warnf("%v", err)
	}
}

// prune removes the worktree and the branch of every merged task: its work is
// on the current branch now. It runs after every merge, so a crash between a
// merge and the removal is made good by the next run of the graph. A worktree
// git will not remove (files changed after the merge) is kept and named.
func (g *graphRun) prune(ctx context.Context) {
	graph.PruneTasks(ctx, g.repo, g.stateDir, g.name, g.st.Merged, g.out.Warnf)
}

// kept says where the work of the tasks that were not merged is: their
// worktrees and branches stay for a person to look at or resume.
func (g *graphRun) kept(out map[string]tasks.Outcome) {
	first := true
	for _, t := range g.file.Tasks {
		if slices.Contains(g.st.Merged, t.ID) {
			continue
		}
		wt := graph.TaskWorkTree(g.stateDir, g.name, t.ID)
		if _, err := os.Stat(wt); err != nil {
			continue
		}
		if first {
			fmt.Fprintln(g.pr.Stdout, "\nKept for you (not merged):")
			first = false
		}
		fmt.Fprintf(g.pr.Stdout, "  %s (%s): worktree %s, branch %s\n", t.ID, out[t.ID].State, relTo(g.repo, wt), graph.TaskBranch(g.name, t.ID))
	}
	if !first {
		fmt.Fprintf(g.pr.Stdout, "Run the same command again to resume them; 'agentloop clean' lists what can be removed.\n")
	}
}

func (g *graphRun) summary(out map[string]tasks.Outcome) {
	graph.WriteSummary(g.pr.Stdout, g.file.Tasks, out)
}

// relTo is path relative to repo when it is inside it.
func relTo(repo, path string) string {
	if r, err := filepath.Rel(repo, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}
