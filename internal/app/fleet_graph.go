//go:build temporal

package app

import (
	"context"
	"errors"
	"path/filepath"
	"slices"

	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/ui"
)

// RunGraph is `agentloop run --tasks FILE --engine temporal`: the graph's
// workflow starts on the server, each task's plan resolved here from the
// configuration, and this process follows it until it ends or every task
// still running waits for a human. A graph whose last workflow ended with
// tasks not done is resumed, as the local engine resumes it: the done tasks
// are not run again, the others' runs continue from their last state.
func (f *Fleet) RunGraph(ctx context.Context, o GraphOptions) (Outcome, error) {
	o.Server = f.placed(o.Server)
	usage := func(err error) (Outcome, error) { return Outcome{}, &UsageError{Err: err} }
	repo, err := f.sh.Getwd()
	if err != nil {
		return Outcome{}, err
	}
	cfg, _, err := o.Configure(repo, nil)
	if err != nil {
		return Outcome{}, err
	}
	// The path the workers find the task file at (to tick a Markdown plan).
	path := o.TaskFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(repo, path)
	}
	file, err := tasks.Load(path)
	if err != nil {
		return usage(err)
	}
	if _, err := tasks.NewGraph(file.Tasks); err != nil {
		return usage(err)
	}
	if err := graph.CheckRepo(ctx, repo); err != nil {
		return usage(err)
	}
	name := graph.Name(o.TaskFile)
	base, err := graph.Base(ctx, repo)
	if err != nil {
		return usage(err)
	}
	in := temporal.GraphInput{
		Name: name, File: *file, Parallel: max(file.Parallel, 1), Repo: repo, StateDir: plan.StateDir(cfg, repo),
		Base: base, Runs: map[string]temporal.RunInput{}, TaskQueue: o.MergeQueue,
	}
	if in.TaskQueue == "" {
		in.TaskQueue = o.WorkerQueue
	}
	if o.Parallel > 0 {
		in.Parallel = o.Parallel
	}
	// The graph's workflow and its tasks' carry the repository's identity:
	// a graph of the same name in another repository is another graph.
	if in.RepoID, err = temporal.RepoID(in.StateDir, repo); err != nil {
		return Outcome{}, err
	}
	if err := f.connect(ctx); err != nil {
		return Outcome{}, err
	}
	last, resumed, err := temporal.LastGraph(ctx, f.c, name, in.RepoID)
	if err != nil {
		return Outcome{}, err
	}
	in.Prior, in.Merged, in.Committed = last.Outcomes, last.Merged, last.Committed
	screen := ui.New(ui.Options{Out: f.sh.Stderr, Now: f.sh.Now, JSON: o.JSON})
	// What a merge-back cut short left here (a merged task's worktree, its
	// branch) goes before the graph starts again, as locally.
	graph.PruneMerged(ctx, repo, in.StateDir, name, in.Merged, screen.Warnf)
	// The graph runs with the flags it ran with before, those given now on
	// top, as locally.
	if cfg, in.Args, err = o.Configure(repo, last.Args); err != nil {
		return Outcome{}, err
	}
	for _, t := range file.Tasks {
		if t.Done || in.Prior[t.ID].State.Done() && slices.Contains(in.Merged, t.ID) {
			continue
		}
		p, err := plan.ForTask(cfg, in.StateDir, name, t, f.sh.Getenv, o.Verbose)
		if err != nil {
			return usage(err)
		}
		p.Args = in.Args
		st, err := f.taskState(ctx, p, in.RepoID, resumed)
		if r, ok := o.Resumed[p.Name]; ok {
			st = r
			st.Args, st.WorkDir = p.Args, p.WorkDir
		}
		if err != nil {
			return Outcome{}, err
		}
		run, err := temporal.NewInput(p, st, o.WorkerQueue)
		if err != nil {
			return usage(err)
		}
		run.HeartbeatTimeout, run.ServerFlags, run.Repo = o.Heartbeat, o.Flags, in.RepoID
		run.Run.Task = &temporal.GraphTask{Graph: name, Repo: repo, StateDir: in.StateDir, Task: t, Base: in.Base}
		in.Runs[t.ID] = run
	}
	if err := temporal.StartGraph(ctx, f.c, f.s, in); err != nil {
		return Outcome{}, err
	}
	verb := "Starting"
	if resumed {
		verb = "Resuming"
	}
	screen.Linef("%s task graph %s on Temporal at %s: %d tasks, up to %d in parallel, workflow %s",
		verb, name, f.s.Address, len(file.Tasks), in.Parallel, temporal.GraphWorkflowID(name, in.RepoID))
	runs := map[string]bool{}
	for id := range in.Runs {
		runs[id] = true
	}
	tell, done, err := f.tellGraph(ctx, cfg.Notify, repo, runs, screen)
	if err != nil {
		return Outcome{}, err
	}
	defer done()
	return f.followGraph(ctx, screen, name, in.RepoID, engineFlags(o.Server), tell)
}

// taskState is the state the run of a task starts from: when its graph
// resumes, the last state of its run's workflow in the repository repo (a
// task whose run is over, [graph.RunOver], is then only merged back), else a
// new one.
func (f *Fleet) taskState(ctx context.Context, p *plan.Plan, repo string, resumed bool) (*state.State, error) {
	now := f.sh.Now()
	if !resumed {
		return temporal.NewState(p, now), nil
	}
	v, _, err := temporal.Find(ctx, f.c, p.Name, repo)
	if errors.Is(err, temporal.ErrNoRun) {
		return temporal.NewState(p, now), nil
	}
	if err != nil {
		return nil, err
	}
	st := v.State
	st.Args, st.WorkDir = p.Args, p.WorkDir
	return &st, nil
}

// followGraph shows a graph's tasks as they start and end until the graph
// ends, or every task running waits for guidance. Interrupting it leaves the
// graph going on the workers. repo is the repository's identity
// ([temporal.RepoID]) the graph's workflow carries; engine the flags that put
// the commands it names on this server.
// tell, when set, sends the graph's notifications.
func (f *Fleet) followGraph(ctx context.Context, screen *ui.Printer, name, repo, engine string, tell *graphTell) (Outcome, error) {
	shown := map[string]string{} // what was last said of each task
	var out Outcome
	followed, err := poll(ctx, screen,
		func(ctx context.Context) (temporal.GraphView, error) {
			return temporal.QueryGraph(ctx, f.c, name, repo)
		},
		func(v temporal.GraphView) bool {
			waiting := f.showGraph(ctx, screen, v, repo, shown, tell)
			if v.Ended {
				tell.end(v, f.sh.Now)
				out = f.graphEnded(screen, v, engine)
				return true
			}
			if len(v.Running) > 0 && len(waiting) == len(v.Running) {
				for _, id := range waiting {
					run := tasks.TaskRunName(name, id)
					screen.Linef("Task %s needs you: agentloop report %s --engine temporal", id, run)
					screen.Linef("Then: agentloop resume %s --guidance \"...\" --engine temporal", run)
				}
				screen.Linef("The graph goes on once answered; see it with: agentloop report %s --engine temporal", name)
				out = Outcome{Status: state.StatusEscalated}
				return true
			}
			return false
		},
		"The graph goes on on the workers. See it with: agentloop report "+name+" --engine temporal; stop it with: temporal workflow cancel --workflow-id "+temporal.GraphWorkflowID(name, repo)+" (running the same command again then resumes it)")
	if !followed {
		return interrupted, err
	}
	return out, err
}

// graphEnded says how the graph of v ended, as the local engine does, and
// is its outcome.
func (f *Fleet) graphEnded(screen *ui.Printer, v temporal.GraphView, engine string) Outcome {
	for _, id := range v.Merged {
		screen.Linef("Merged task %s (branch %s)", id, tasks.TaskBranch(v.Name, id))
	}
	for _, w := range v.Warnings {
		screen.Warnf("%s", w)
	}
	graph.WriteSummary(f.sh.Stdout, v.File.Tasks, v.Outcomes)
	res := &GraphResult{Outcomes: v.Outcomes, Merged: v.Merged, Interrupted: v.Interrupted, BudgetExhausted: v.Stopped != ""}
	if v.Interrupted {
		screen.Linef("Interrupted. Run the same command again to resume the graph.")
		return Outcome{Graph: res}
	}
	res.Unfinished = graph.ListUnfinished(v.Name, v.File.Tasks, v.Outcomes, v.Merged, f.graphCommands(v, engine))
	graph.WriteUnfinished(f.sh.Stdout, res.Unfinished, func(id string) string {
		if o := v.Outcomes[id]; o.Branch != "" {
			return "branch " + o.Branch
		}
		return ""
	})
	return Outcome{Graph: res}
}

// showGraph says what changed of each task since the last call, and returns
// the running tasks whose loop waits for guidance.
func (f *Fleet) showGraph(ctx context.Context, screen *ui.Printer, v temporal.GraphView, repo string, shown map[string]string, tell *graphTell) (waiting []string) {
	for _, t := range v.File.Tasks {
		if slices.Contains(v.Running, t.ID) {
			rv, _, err := temporal.FindFrom(ctx, f.c, tasks.TaskRunName(v.Name, t.ID), repo, tell.from(t.ID))
			if err == nil {
				tell.task(v, t.ID, rv, false)
			}
			if err == nil && rv.Waiting {
				waiting = append(waiting, t.ID)
				say(shown, t.ID, "waiting", func() { screen.Warnf("Task %s escalated: %s", t.ID, rv.State.Reason) })
				continue
			}
			say(shown, t.ID, "running", func() { screen.Linef("%s", graph.TaskStartLine(t)) })
			continue
		}
		o, ok := v.Outcomes[t.ID]
		if !ok || o.State == tasks.StatePending {
			continue
		}
		say(shown, t.ID, string(o.State), func() {
			if tell != nil {
				if rv, key, err := temporal.Find(ctx, f.c, tasks.TaskRunName(v.Name, t.ID), repo); err == nil {
					tell.task(v, t.ID, f.completedView(ctx, key, rv), true)
				}
			}
			if line := graph.TaskLine(t.ID, o); o.State.Done() {
				screen.Linef("%s", line)
			} else {
				screen.Warnf("%s", line)
			}
		})
	}
	return waiting
}

// say calls show when what is said of id changes.
func say(shown map[string]string, id, what string, show func()) {
	if shown[id] != what {
		shown[id] = what
		show()
	}
}

// graphCommands are how the commands of the graph of v are written for the
// person: its task file relative to this directory, on the engine and server
// of engine ("--engine temporal …").
func (f *Fleet) graphCommands(v temporal.GraphView, engine string) graph.Commands {
	file := v.File.Path
	if wd, err := f.sh.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, file); err == nil && filepath.IsLocal(rel) {
			file = rel
		}
	}
	return graph.Commands{TaskFile: file, Engine: engine}
}
