//go:build temporal

package app

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/agentloop/agentloop/internal/notify"
	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/ui"
)

// Resume is `agentloop resume NAME --engine temporal`: a run waiting for
// guidance gets it as the workflow's update; a run that ended aborted or
// interrupted starts again from its last state, as does one that succeeded
// reopened with guidance ([ResumeOptions.Reopen]); a graph's task that has
// nothing of its own to resume has its graph go on ([TaskRule]), as
// the local engine does.
func (f *Fleet) Resume(ctx context.Context, name string, o ResumeOptions) (Outcome, error) {
	if name == "" {
		return Outcome{}, usageError("name the run to resume: agentloop resume NAME ('agentloop status' lists them)")
	}
	o.Server = f.placed(o.Server)
	v, key, err := f.find(ctx, name)
	if err != nil {
		return Outcome{}, err
	}
	// A graph's task's run and its graph carry the same repository identity.
	_, repo := temporal.Unscoped(key)
	st := v.State
	var member *tasks.Member
	if t := v.Task; t != nil {
		m := t.Member()
		member = &m
	}
	if t := v.Task; t != nil && !v.Waiting {
		if gv, err := temporal.QueryGraph(ctx, f.c, v.Graph, repo); err == nil {
			in := InGraph{ID: t.Task.ID, Outcome: gv.Outcomes[t.Task.ID], Merged: slices.Contains(gv.Merged, t.Task.ID), Commands: f.graphCommands(gv, engineFlags(o.Server))}
			goOn, say, err := TaskRule(&st, in, o.Guidance, o.Accept || o.Abort)
			if err != nil {
				return Outcome{}, err
			}
			if goOn {
				screen, err := f.sh.Screen(Shown{})
				if err != nil {
					return Outcome{}, err
				}
				if say != "" {
					screen.Linef("%s", say)
				}
				if !gv.Ended {
					// Its graph's workflow goes on, and merges it.
					return f.followGraph(ctx, screen, v.Graph, repo, engineFlags(o.Server), nil)
				}
				return f.continueGraph(ctx, o, screen, t, repo, nil)
			}
		}
	}
	switch {
	case o.Accept || o.Abort:
		if !v.Waiting {
			return Outcome{}, NotEscalated(name, st.Status)
		}
		if err := temporal.Guide(ctx, f.c, key, temporal.Guidance{Accept: o.Accept, Abort: o.Abort}); err != nil {
			return Outcome{}, err
		}
		screen, err := f.sh.Screen(Shown{})
		if err != nil {
			return Outcome{}, err
		}
		// No notification: the run ends as the person chose, who knows it
		// (as a local run settled).
		out, err := f.followRun(ctx, screen, key, len(v.Events), nil)
		if v.Graph != "" && err == nil && out.Ended() {
			return f.followGraph(ctx, screen, v.Graph, repo, engineFlags(o.Server), nil)
		}
		out.Chosen = true
		return out, err
	case v.Waiting && o.Guidance == "":
		return Outcome{}, usageError("run %s is waiting for your answer to its escalation (%s): read it with 'agentloop report %s --engine temporal', then resume with --guidance \"...\"", name, st.Reason, name)
	case v.Waiting:
		return f.answer(ctx, o, v, key, member)
	case !st.Status.Ended():
		return Outcome{}, fmt.Errorf("run %s is running on Temporal; follow it with 'agentloop follow %s --engine temporal'", name, name)
	}
	if err := Over(&st, "--engine temporal"); err != nil && (!o.Reopen || o.Guidance == "") {
		return Outcome{}, err
	}
	wd, err := f.sh.Getwd()
	if err != nil {
		return Outcome{}, err
	}
	p, err := ResumePlan(&st, member, o.Configure, wd, f.sh.Getenv, o.Verbose)
	if err != nil {
		return Outcome{}, err
	}
	screen, err := f.sh.Screen(ShownOf(p))
	if err != nil {
		return Outcome{}, err
	}
	if o.Guidance != "" {
		state.ApplyGuidance(&st, state.Guidance{Text: o.Guidance, Architecture: o.ADR})
	}
	screen.Linef("%s", ResumeTree(ctx, &st, p.WorkDir, "", o.UndoCut))
	if o.From != "" {
		// Its worker's work tree, in whatever clone, is restored to it; what
		// the run did before stays behind it.
		st.Tree, st.Floor = o.From, max(st.Floor, st.Attempts)
	}
	st.Args, st.WorkDir = p.Args, p.WorkDir
	if v.Task != nil {
		if gv, err := temporal.QueryGraph(ctx, f.c, v.Graph, repo); err == nil && gv.Ended {
			// Its graph ended: the task's run continues in its graph, resumed
			// as run --tasks again resumes it, which commits and merges the
			// task's work by the graph's rules and runs the tasks after it.
			st.Status = state.StatusRunning
			return f.continueGraph(ctx, o, screen, v.Task, repo, map[string]*state.State{st.Name: &st})
		}
	}
	in, err := temporal.NewInput(p, &st, "")
	if err != nil {
		return Outcome{}, &UsageError{Err: err}
	}
	in.Run.Task = v.Task // a graph's task: its worker rebuilds the task's plan
	// The run keeps its heartbeat timeout unless the flag gives one now.
	in.HeartbeatTimeout = cmp.Or(o.Heartbeat, v.HeartbeatTimeout)
	in.ServerFlags = o.Flags
	in.Repo = repo
	if err := temporal.Start(ctx, f.c, f.s, in, f.sh.Now()); err != nil {
		return Outcome{}, err
	}
	screen.Linef("Run %s continues on Temporal from iteration %d", name, st.TotalIterations+1)
	w, done, err := f.watch(ctx, p, in.Run.RunID, screen)
	if err != nil {
		return Outcome{}, err
	}
	defer done()
	out, err := f.followRun(ctx, screen, key, 0, w)
	if v.Task == nil || err != nil || !out.Ended() {
		return out, err
	}
	return f.followGraph(ctx, screen, v.Graph, repo, engineFlags(o.Server), nil)
}

// answer gives the run key, which waits for a person (v), the guidance of
// o, and follows it until it ends or waits again, then its graph, when it is
// a graph's task (member), until that ends or waits.
func (f *Fleet) answer(ctx context.Context, o ResumeOptions, v temporal.View, key string, member *tasks.Member) (Outcome, error) {
	name, repo := temporal.Unscoped(key)
	screen, err := f.sh.Screen(Shown{})
	if err != nil {
		return Outcome{}, err
	}
	// The resume rule on a copy of the waiting run's state: what the tree
	// holds since the escalation stays, and later rollbacks count from it.
	st := v.State
	wd, _ := f.sh.Getwd()
	line := ResumeTree(ctx, &st, cmp.Or(st.WorkDir, wd), "", false)
	if err := temporal.Guide(ctx, f.c, key, temporal.Guidance{Text: o.Guidance, Architecture: o.ADR, Floor: st.Floor}); err != nil {
		return Outcome{}, err
	}
	screen.Linef("%s", line)
	screen.Linef("Guidance sent to run %s; the iteration counter starts again (spend so far is kept)", name)
	w, cfg, done := f.answeredWatch(ctx, o, v, member, screen)
	defer done()
	out, err := f.followRun(ctx, screen, key, len(v.Events), w)
	if v.Graph == "" || err != nil || !out.Ended() {
		return out, err
	}
	// The task's graph goes on by itself: follow it as run --tasks does,
	// until it ends or waits again, telling what happens from now on.
	tell, tdone, err := f.tellGraphFrom(ctx, cfg, v.Graph, repo, v.Task.Repo, screen)
	if err != nil {
		return Outcome{}, err
	}
	defer tdone()
	return f.followGraph(ctx, screen, v.Graph, repo, engineFlags(o.Server), tell)
}

// answeredWatch is the notifications' watch of the run of v, answered: the
// events after the answer (it escalates again, it ends) are told, as they
// are of a local run resumed with guidance. Its plan's receivers (cfg) are those
// of the run's configuration here; when it cannot be read, that is said and
// nothing is sent.
func (f *Fleet) answeredWatch(ctx context.Context, o ResumeOptions, v temporal.View, member *tasks.Member, screen *ui.Printer) (*notify.Watch, target.Config, func()) {
	none := func() {}
	wd, err := f.sh.Getwd()
	if err != nil {
		return nil, target.Config{}, none
	}
	st := v.State
	p, err := ResumePlan(&st, member, o.Configure, wd, f.sh.Getenv, o.Verbose)
	if err == nil {
		var w *notify.Watch
		var done func()
		if w, done, err = f.watch(ctx, p, st.RunID, screen); err == nil {
			return w, p.Notify, done
		}
	}
	screen.Warnf("no notifications of run %s: %v", st.Name, err)
	return nil, target.Config{}, none
}

// continueGraph resumes the graph of the task t in the repository repo,
// whose workflow ended, as 'run --tasks' again resumes it, the task's run
// continuing from its state in resumed (none: its last).
func (f *Fleet) continueGraph(ctx context.Context, o ResumeOptions, screen *ui.Printer, t *temporal.GraphTask, repo string, resumed map[string]*state.State) (Outcome, error) {
	gv, err := temporal.QueryGraph(ctx, f.c, t.Graph, repo)
	if err != nil {
		return Outcome{}, err
	}
	screen.Linef("Task %s goes on in its graph %s, as 'agentloop run --tasks %s %s' resumes it", t.Task.ID, t.Graph, f.graphCommands(gv, "").TaskFile, engineFlags(o.Server))
	at := *f
	at.sh.Getwd = func() (string, error) { return t.Repo, nil }
	return at.RunGraph(ctx, GraphOptions{
		Server: Server{Heartbeat: o.Server.Heartbeat, Flags: o.Flags}, TaskFile: gv.File.Path, Configure: o.GraphConfigure,
		MergeQueue: gv.TaskQueue, Verbose: o.Verbose, JSON: o.JSON, Resumed: resumed,
	})
}
