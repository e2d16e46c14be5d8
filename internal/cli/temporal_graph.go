//go:build temporal

package cli

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/ui"
)

// runTasksTemporal is `agentloop run --tasks FILE --engine temporal`: the
// graph's workflow starts on the server, each task's plan resolved here from
// the configuration, and this process follows it until it ends or every task
// still running waits for a human. A graph whose last workflow ended with
// tasks not done is resumed, as the local engine resumes it: the done tasks
// are not run again, the others' runs continue from their last state.
func runTasksTemporal(ctx context.Context, o runOptions, d Deps) error {
	return runTasksTemporalFrom(ctx, o, d, nil)
}

// runTasksTemporalFrom is [runTasksTemporal] with the states some of the
// graph's task runs continue from, by run name (when a resume of one of its
// tasks goes on with its graph).
func runTasksTemporalFrom(ctx context.Context, o runOptions, d Deps, resumedRuns map[string]*loop.State) error {
	repo, err := d.Getwd()
	if err != nil {
		return err
	}
	configure := configure(d, o.loopOptions)
	cfg, _, err := configure(repo, nil)
	if err != nil {
		return err
	}
	// The path the workers find the task file at (to tick a Markdown plan).
	path := o.tasks
	if !filepath.IsAbs(path) {
		path = filepath.Join(repo, path)
	}
	file, err := tasks.Load(path)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if _, err := tasks.NewGraph(file.Tasks); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if err := graph.CheckRepo(ctx, repo); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	name := graph.Name(o.tasks)
	base, err := graph.Base(ctx, repo)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	in := temporal.GraphInput{
		Name: name, File: *file, Parallel: max(file.Parallel, 1), Repo: repo, StateDir: plan.StateDir(cfg, repo),
		Base: base, Runs: map[string]temporal.RunInput{}, TaskQueue: o.mergeQueue,
	}
	if in.TaskQueue == "" {
		in.TaskQueue = o.workerQueue
	}
	if o.isGiven("parallel") {
		in.Parallel = max(o.parallel, 1)
	}
	// The graph's workflow and its tasks' carry the repository's identity:
	// a graph of the same name in another repository is another graph.
	if in.RepoID, err = temporal.RepoID(in.StateDir, repo); err != nil {
		return err
	}
	c, s, err := dialTemporal(ctx, d, o.engine, o.loopOptions)
	if err != nil {
		return err
	}
	defer c.Close()
	last, resumed, err := temporal.LastGraph(ctx, c, name, in.RepoID)
	if err != nil {
		return err
	}
	in.Prior, in.Merged = last.Outcomes, last.Merged
	screen := ui.New(ui.Options{Out: d.Stderr, Now: d.Now, JSON: o.logFormat == "json"})
	// What a merge-back cut short left here (a merged task's worktree, its
	// branch) goes before the graph starts again, as locally.
	graph.PruneMerged(ctx, repo, in.StateDir, name, in.Merged, screen.Warnf)
	// The graph runs with the flags it ran with before, those given now on
	// top, as locally.
	if cfg, in.Args, err = configure(repo, last.Args); err != nil {
		return err
	}
	eng, err := o.engine.resolved(d)
	if err != nil {
		return err
	}
	for _, t := range file.Tasks {
		if t.Done || in.Prior[t.ID].State.Done() && slices.Contains(in.Merged, t.ID) {
			continue
		}
		p, err := graph.TaskPlan(cfg, in.StateDir, name, t, d.Getenv, o.verbose)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		p.Args = in.Args
		st, err := taskState(ctx, c, p, in.RepoID, resumed, d.Now())
		if r, ok := resumedRuns[p.Name]; ok {
			st = r
			st.Args, st.WorkDir = p.Args, p.WorkDir
		}
		if err != nil {
			return err
		}
		run, err := temporal.NewInput(p, st, o.workerQueue)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		run.HeartbeatTimeout, run.ServerFlags, run.Repo = eng.heartbeat, o.serverFlags(), in.RepoID
		run.Run.Task = &temporal.GraphTask{Graph: name, Repo: repo, StateDir: in.StateDir, Task: t, Base: in.Base}
		in.Runs[t.ID] = run
	}
	if err := temporal.StartGraph(ctx, c, s, in); err != nil {
		return err
	}
	verb := "Starting"
	if resumed {
		verb = "Resuming"
	}
	screen.Linef("%s task graph %s on Temporal at %s: %d tasks, up to %d in parallel, workflow %s",
		verb, name, s.Address, len(file.Tasks), in.Parallel, temporal.GraphWorkflowID(name, in.RepoID))
	return followGraph(ctx, c, d, screen, name, in.RepoID, o.engineFlags())
}

// taskState is the state the run of a task starts from: when its graph
// resumes, the last state of its run's workflow in the repository repo (a
// task whose run is over, [graph.RunOver], is then only merged back), else a
// new one.
func taskState(ctx context.Context, c client.Client, p *plan.Plan, repo string, resumed bool, now time.Time) (*loop.State, error) {
	if !resumed {
		return temporal.NewState(p, now), nil
	}
	v, _, err := temporal.Find(ctx, c, p.Name, repo)
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
// ends, or every task running waits for guidance; the exit code is the
// graph's, as the local engine's. Interrupting it leaves the graph going on
// the workers. repo is the repository's identity ([temporal.RepoID]) the
// graph's workflow carries.
func followGraph(ctx context.Context, c client.Client, d Deps, screen *ui.Printer, name, repo, engine string) error {
	shown := map[string]string{} // what was last said of each task
	return poll(ctx, screen,
		func(ctx context.Context) (temporal.GraphView, error) { return temporal.QueryGraph(ctx, c, name, repo) },
		func(v temporal.GraphView) (bool, error) {
			waiting := showGraph(ctx, c, screen, v, repo, shown)
			if v.Ended {
				for _, id := range v.Merged {
					screen.Linef("Merged task %s (branch %s)", id, graph.TaskBranch(name, id))
				}
				for _, w := range v.Warnings {
					screen.Warnf("%s", w)
				}
				graph.WriteSummary(d.Stdout, v.File.Tasks, v.Outcomes)
				if v.Interrupted {
					screen.Linef("Interrupted. Run the same command again to resume the graph.")
					return true, &ExitError{Code: ExitInterrupted}
				}
				unfinished := graph.ListUnfinished(name, v.File.Tasks, v.Outcomes, v.Merged, graphCommands(d, v, engine))
				graph.WriteUnfinished(d.Stdout, unfinished, func(id string) string {
					if o := v.Outcomes[id]; o.Branch != "" {
						return "branch " + o.Branch
					}
					return ""
				})
				return true, &ExitError{Code: graphExit(unfinished, v.Stopped != "")}
			}
			if len(v.Running) > 0 && len(waiting) == len(v.Running) {
				for _, id := range waiting {
					run := graph.TaskRunName(name, id)
					screen.Linef("Task %s needs you: agentloop report %s --engine temporal", id, run)
					screen.Linef("Then: agentloop resume %s --guidance \"...\" --engine temporal", run)
				}
				screen.Linef("The graph goes on once answered; see it with: agentloop report %s --engine temporal", name)
				return true, &ExitError{Code: ExitEscalated}
			}
			return false, nil
		},
		"The graph goes on on the workers. See it with: agentloop report "+name+" --engine temporal; stop it with: temporal workflow cancel --workflow-id "+temporal.GraphWorkflowID(name, repo)+" (running the same command again then resumes it)")
}

// showGraph says what changed of each task since the last call, and returns
// the running tasks whose loop waits for guidance.
func showGraph(ctx context.Context, c client.Client, screen *ui.Printer, v temporal.GraphView, repo string, shown map[string]string) (waiting []string) {
	for _, t := range v.File.Tasks {
		if slices.Contains(v.Running, t.ID) {
			rv, _, err := temporal.Find(ctx, c, graph.TaskRunName(v.Name, t.ID), repo)
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

// graphReportTemporal is the report of the task graph name of the repository
// repo on the server: its tasks as the graph's query has them, a running
// task that waits for guidance shown escalated with its run's reason.
func graphReportTemporal(ctx context.Context, c client.Client, name, repo string) (report.Run, error) {
	v, err := temporal.QueryGraph(ctx, c, name, repo)
	if err != nil {
		return report.Run{}, err
	}
	outcomes := make(map[string]tasks.Outcome, len(v.Outcomes))
	for id, o := range v.Outcomes {
		outcomes[id] = o
	}
	running := map[string]bool{}
	for _, id := range v.Running {
		rv, _, err := temporal.Find(ctx, c, graph.TaskRunName(name, id), repo)
		if err != nil || !rv.Waiting {
			running[id] = true
			continue
		}
		st := rv.State
		st.Status = loop.StatusEscalated
		outcomes[id] = graph.OutcomeOf(&st, graph.TaskBranch(name, id))
	}
	return graph.Report(name, v.File.Path, v.File.Tasks, outcomes, running)
}

// isNoGraph reports whether err says the server has no graph of the name.
func isNoGraph(err error) bool { return errors.Is(err, temporal.ErrNoGraph) }

// workerTaskPlan rebuilds the plan of a task of a graph on a worker, by the
// rule every resume of a task follows ([graph.ResumePlan]): the configuration
// of the graph's repository (on this worker's disk, see [temporal.RunRef.On])
// with the run's recorded flags, the task applied, in its worktree.
func workerTaskPlan(d Deps, lo loopOptions, r temporal.RunRef) (*plan.Plan, error) {
	p, err := graph.ResumePlan(r.Task.Member(), r.Args, configure(d, loopOptions{}), d.Getenv, lo.verbose)
	if err != nil {
		return nil, err
	}
	p.Args = r.Args
	return p, nil
}

// graphCommands are how the commands of the graph of v are written for the
// person: its task file relative to this directory, on the engine and server
// of engine ("--engine temporal …").
func graphCommands(d Deps, v temporal.GraphView, engine string) graph.Commands {
	file := v.File.Path
	if wd, err := d.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, file); err == nil && filepath.IsLocal(rel) {
			file = rel
		}
	}
	return graph.Commands{TaskFile: file, Engine: engine}
}

// engineFlags are the flags that put a command on the Temporal engine and
// server this one runs on.
func (o *loopOptions) engineFlags() string {
	return strings.TrimSpace("--engine temporal " + o.serverFlags())
}
