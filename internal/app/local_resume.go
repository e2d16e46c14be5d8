package app

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// Resume continues the run name of the state folder ("": the only one not
// yet over) in this process: by the rules of a graph's task first
// ([TaskRule]), then by the run's own ([Session.Resume], [Session.Settle]);
// a graph's task, once done, has its graph go on as 'run --tasks' again does.
func (l *Local) Resume(ctx context.Context, name string, o ResumeOptions) (Outcome, error) {
	store := l.store()
	if name == "" {
		var err error
		if name, err = l.onlyRun(store, "resume", Resumable, false); err != nil {
			return Outcome{}, err
		}
	}
	prev, err := store.Load(name)
	if _, gap := errors.AsType[*state.HistoryGapError](err); gap {
		err = nil // the session says so when it opens the run
	}
	if err != nil {
		if _, ok := errors.AsType[*state.CorruptError](err); ok {
			return Outcome{}, fmt.Errorf("%w; there is nothing to resume: start again with 'agentloop run %s'", err, name)
		}
		if ne, ok := errors.AsType[*state.NewerError](err); ok {
			return Outcome{}, ne
		}
		return Outcome{}, fmt.Errorf("no run named %q to resume in %s ('agentloop status' lists them): %w", name, store.Root, err)
	}
	wd, err := l.sh.Getwd()
	if err != nil {
		return Outcome{}, err
	}
	task, isTask, err := graph.Find(store.Root, name)
	if err != nil {
		return Outcome{}, err
	}
	var member *tasks.Member
	var inGraph InGraph
	// taskRule applies the rules of a graph's task to st ([TaskRule]):
	// goOn, its graph goes on (what to say of it said).
	taskRule := func(st *state.State, settle bool) (goOn bool, err error) {
		goOn, say, err := TaskRule(st, inGraph, o.Guidance, settle)
		if goOn && say != "" {
			fmt.Fprintln(l.sh.Progress(o.JSON), say)
		}
		return goOn, err
	}
	if isTask {
		member = &task.Member
		inGraph = InGraph{
			ID: task.Task.ID, Outcome: task.State.Outcomes[task.Task.ID], Merged: slices.Contains(task.State.Merged, task.Task.ID),
			Commands: graph.Commands{TaskFile: RelPath(wd, task.State.File)},
		}
		// Before anything starts: a merged task's worktree is gone.
		if goOn, err := taskRule(prev, o.Accept || o.Abort); err != nil {
			return Outcome{}, err
		} else if goOn {
			return l.resumeGraph(ctx, o, task)
		}
	}
	p, err := ResumePlan(prev, member, o.Configure, wd, l.sh.Getenv, o.Verbose)
	if err != nil {
		return Outcome{}, err
	}
	screen, err := l.sh.Screen(ShownOf(p))
	if err != nil {
		return Outcome{}, err
	}
	if o.Accept || o.Abort {
		// Nothing runs: the agent need not be there.
		s, err := Open(l.sh.Process, p, screen, l.sh.Log(ShownOf(p)), false)
		if err != nil {
			return Outcome{}, err
		}
		if err := s.Settle(ctx, o.Accept); err != nil {
			return Outcome{}, err
		}
		return Outcome{Status: s.State().Status, Chosen: true}, nil
	}
	if err := p.Preflight(l.sh.Host); err != nil {
		return Outcome{}, err
	}
	pr, done, err := l.notifying(ctx, p)
	if err != nil {
		return Outcome{}, err
	}
	defer done()
	s, err := Open(pr, p, screen, l.sh.Log(ShownOf(p)), false)
	if err != nil {
		return Outcome{}, err
	}
	if isTask {
		// Again on the state under the run's lock, which Hold changes.
		if goOn, err := taskRule(s.State(), false); err != nil || goOn {
			s.Close()
			if err != nil {
				return Outcome{}, err
			}
			return l.resumeGraph(ctx, o, task)
		}
	}
	if err := s.Resume(ctx, Answer{Guidance: o.Guidance, ADR: o.ADR, UndoCut: o.UndoCut, Reopen: o.Reopen}); err != nil {
		return Outcome{}, err
	}
	out, err := run(ctx, s)
	if !isTask || err != nil || out.Status != state.StatusSucceeded && out.Status != state.StatusCompleted {
		return out, err
	}
	// The task is done: its graph goes on, as run --tasks again does — the
	// task merged if its gates pass on the merged result, its dependents run.
	return l.resumeGraph(ctx, o, task)
}

// resumeGraph goes on with the graph of the task just resumed, as running its
// task file again does, with the flags the graph was run with.
func (l *Local) resumeGraph(ctx context.Context, o ResumeOptions, task graph.Found) (Outcome, error) {
	file := task.State.File
	if wd, err := l.sh.Getwd(); err == nil {
		file = RelPath(wd, file)
	}
	fmt.Fprintf(l.sh.Progress(o.JSON), "Task %s is done; its graph %s goes on, as 'agentloop run --tasks %s' does\n", task.Task.ID, task.Graph, file)
	pr := l.sh.Process
	pr.Getwd = func() (string, error) { return task.Repo, nil }
	return l.runGraph(ctx, pr, GraphOptions{TaskFile: task.State.File, Configure: o.GraphConfigure, Verbose: o.Verbose, JSON: o.JSON})
}
