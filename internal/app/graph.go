package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/ui"
)

// GraphOptions are what a task graph is run with.
type GraphOptions struct {
	// Server is where the graph runs on the Temporal engine.
	Server
	TaskFile string // tasks.yaml or a Markdown checklist
	// Configure loads the configuration with the flags the graph was last
	// run with, those given now on top ([plan.Configure]).
	Configure plan.Configure
	Getenv    func(string) string
	Parallel  int // how many tasks run at once; 0: the task file's, else 1
	Verbose   bool
	JSON      bool // progress as JSON lines
	Log       *slog.Logger
	// Host is what the preflight reads of the machine (PATH, environment,
	// root); its zero value checks no program on PATH.
	Host agent.Host
	// MergeQueue is the queue of the Temporal worker that merges the tasks
	// back (run --merge-queue); "" for the worker queue's.
	MergeQueue string
	// Resumed are the states some of the graph's task runs continue from, by
	// run name (on Temporal, a resume of one of its tasks goes on with its
	// graph).
	Resumed map[string]*state.State
}

// GraphResult is how a task graph ended.
type GraphResult struct {
	Outcomes map[string]tasks.Outcome
	Merged   []string // the tasks merged back, by this run or an earlier one
	// Unfinished are the tasks whose work is not merged back, each with what
	// finishes it; none when the graph is done.
	Unfinished      []graph.Unfinished
	Interrupted     bool
	BudgetExhausted bool // the global budget stopped tasks from starting
}

// RunGraph runs a task graph: every task a loop of its own in its own git
// worktree and branch, independent ones in parallel. A task starts from the
// repository's HEAD once its dependencies are merged, so it builds on their
// work; it merges back as soon as its loop succeeds, if its required gates
// pass on the merged result ([graph.Merger]), and its worktree is then
// removed. The work tree is the repository's (pr.Getwd).
func RunGraph(ctx context.Context, pr Process, o GraphOptions) (GraphResult, error) {
	repo, err := pr.Getwd()
	if err != nil {
		return GraphResult{}, err
	}
	if err := graph.CheckRepo(ctx, repo); err != nil {
		return GraphResult{}, &UsageError{Err: err}
	}
	g, deps, err := openGraph(ctx, pr, o)
	if err != nil {
		return GraphResult{}, err
	}
	// Every agent and gate a task to run may start is checked before any task
	// starts, as a single run checks its own before the baseline: a missing
	// program is found now, with no worktree, branch or state made.
	if _, err := g.preflight(false); err != nil {
		return GraphResult{}, err
	}
	// The graph's state, worktrees and logs go in the state folder: it is
	// kept out of git from the start.
	if err := (state.Store{Root: g.stateDir}).EnsureRoot(); err != nil {
		return GraphResult{}, err
	}
	// The graph merges its tasks' work into the repository's work tree: no
	// other loop works there meanwhile (its tasks work in worktrees of their
	// own).
	tree, err := lockWorkTree(state.Store{Root: g.stateDir}, &gitx.Workspace{Dir: repo}, fmt.Sprintf("task graph %q", g.name))
	if err != nil {
		return GraphResult{}, err
	}
	defer tree.Release()
	// What a run cut short after a merge left (the task's worktree, its
	// branch) goes before any task starts: a merged task never runs again.
	graph.PruneMerged(ctx, repo, g.stateDir, g.name, g.st.Merged, g.out.Warnf)
	parallel := o.Parallel
	if parallel == 0 {
		parallel = max(g.file.Parallel, 1)
	}
	g.out.Linef("Starting task graph %s: %d tasks, up to %d in parallel", g.name, len(g.file.Tasks), max(parallel, 1))
	sched := tasks.Scheduler{
		Parallel: parallel,
		Run:      g.runTask,
		Budget:   g.budget,
		Started:  func(t tasks.Task) { g.out.Linef("%s", graph.TaskStartLine(t)) },
		Finished: g.finished,
	}
	// A task whose loop ended done but whose work is not merged yet (a
	// process killed in between, a merge refused) is run again: its loop is
	// over, so only its merge is tried, and its dependents wait for it.
	prior := map[string]tasks.Outcome{}
	merged := make(map[string]bool, len(g.st.Merged))
	for _, id := range g.st.Merged {
		merged[id] = true
	}
	for id, o := range g.st.Outcomes {
		if o.State.Done() && merged[id] {
			prior[id] = o
		}
	}
	// The state as it starts (its flags), then each change in its journal.
	g.save()
	if g.journal, err = graph.OpenJournal(g.stateDir, g.name); err != nil {
		g.out.Warnf("%v; the whole state is saved after each task instead", err)
	}
	outcomes, execErr := sched.Execute(ctx, deps, prior)
	if g.journal != nil {
		_ = g.journal.Close()
	}
	g.mu.Lock()
	g.st.Outcomes = outcomes
	g.mu.Unlock()
	g.save()
	graph.WriteSummary(g.pr.Stdout, g.file.Tasks, outcomes)
	if ctx.Err() == nil {
		g.tellEnd(outcomes)
	}
	res := GraphResult{Outcomes: outcomes, Merged: slices.Clone(g.st.Merged), BudgetExhausted: errors.Is(execErr, tasks.ErrBudgetExhausted)}
	if ctx.Err() != nil {
		g.out.Linef("Interrupted. Run the same command again to resume the graph.")
		res.Interrupted = true
		return res, nil
	}
	res.Unfinished = graph.ListUnfinished(g.name, g.file.Tasks, outcomes, g.st.Merged, g.commands(ctx))
	graph.WriteUnfinished(g.pr.Stdout, res.Unfinished, g.keptAt)
	if execErr != nil && !res.BudgetExhausted {
		return res, execErr
	}
	return res, nil
}

// openGraph reads the task file and the graph's state, and loads the
// configuration with the flags the graph was last run with.
func openGraph(ctx context.Context, pr Process, o GraphOptions) (*graphRun, tasks.Graph, error) {
	file, err := tasks.Load(o.TaskFile)
	if err != nil {
		return nil, tasks.Graph{}, &UsageError{Err: err}
	}
	deps, err := tasks.NewGraph(file.Tasks)
	if err != nil {
		return nil, tasks.Graph{}, &UsageError{Err: err}
	}
	repo, err := pr.Getwd()
	if err != nil {
		return nil, tasks.Graph{}, err
	}
	// The state folder is the configuration's as given now: the graph's
	// state there says which flags it was run with.
	cfg, _, err := o.Configure(repo, nil)
	if err != nil {
		return nil, tasks.Graph{}, err
	}
	grace, err := plan.StopGrace(o.Getenv)
	if err != nil {
		return nil, tasks.Graph{}, &UsageError{Err: err}
	}
	g := &graphRun{pr: pr, o: o, repo: repo, name: graph.Name(o.TaskFile), stateDir: plan.StateDir(cfg, repo), file: file,
		out: ui.New(ui.Options{Out: pr.Progress(o.JSON), Now: pr.Now, JSON: o.JSON}), grace: grace}
	if err := g.load(); err != nil {
		return nil, tasks.Graph{}, err
	}
	if g.cfg, g.st.Args, err = o.Configure(repo, g.st.Args); err != nil {
		return nil, tasks.Graph{}, err
	}
	g.st.File, g.st.Repo = file.Path, repo
	if !filepath.IsAbs(g.st.File) {
		g.st.File = filepath.Join(repo, g.st.File)
	}
	return g, deps, nil
}

type graphRun struct {
	pr       Process
	o        GraphOptions
	cfg      *config.Config // with the graph's flags
	repo     string
	name     string
	stateDir string
	file     *tasks.File
	out      *ui.Printer

	mu      sync.Mutex
	st      graph.State
	journal *graph.Journal // the changes of st while the tasks run; nil: st saved whole
	// gitMu serialises git's work on the repository's metadata (worktrees,
	// merges, branches): git locks it.
	gitMu sync.Mutex
	// mergeMu makes merges one at a time: each is checked on the
	// repository's HEAD as the one before left it.
	mergeMu sync.Mutex
	// grace is how long the graph's git work goes on after a signal
	// ([graph.Finishing]).
	grace time.Duration
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

// record keeps the outcome of the task id (and that it is merged, with
// merged) in the graph's state, appended to its journal.
func (g *graphRun) record(id string, o tasks.Outcome, merged bool) {
	g.mu.Lock()
	g.st.Outcomes[id] = o
	if merged {
		g.st.Merged = append(g.st.Merged, id)
	}
	j := g.journal
	g.mu.Unlock()
	if j == nil {
		g.save()
		return
	}
	err := j.Outcome(id, o)
	if err == nil && merged {
		err = j.Merged(id)
	}
	if err != nil {
		g.out.Warnf("task graph state: %v; the whole state is saved instead", err)
		g.save()
	}
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
	g, _, err := openGraph(ctx, Process{Stdout: io.Discard, Now: pr.Now, Getwd: pr.Getwd}, o)
	if err != nil {
		return nil, err
	}
	return g.preflight(true)
}

// preflight resolves the tasks still to run in the repository (their
// worktrees do not exist yet and start from its HEAD) and checks each plan's
// agents and gates; tasks that fail the same way are named together. The
// plans are returned only when keep is set: a graph of many tasks resolves
// them again as each starts, and holding them all would grow its memory with
// the task count.
func (g *graphRun) preflight(keep bool) ([]TaskPlan, error) {
	var plans []TaskPlan
	var order []string
	failed := map[string][]string{} // error text → task ids
	errs := map[string]error{}
	for _, t := range g.file.Tasks {
		if t.Done || g.st.Outcomes[t.ID].State.Done() {
			continue
		}
		p, err := plan.Resolve(g.cfg, t.Procedure, plan.Options{WorkDir: g.repo, Getenv: g.o.Getenv, Verbose: g.o.Verbose})
		if err == nil {
			p.Name, p.StateDir = tasks.TaskRunName(g.name, t.ID), g.stateDir
			err = plan.ApplyTask(p, t)
		}
		if err != nil {
			return nil, &UsageError{Err: fmt.Errorf("task %s: %w", t.ID, err)}
		}
		if keep {
			plans = append(plans, TaskPlan{Task: t, Title: graph.TaskTitle(t), Plan: p})
		}
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
