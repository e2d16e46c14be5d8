//go:build temporal

package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/temporal"
)

// States are the states of the runs named, read through their workflows'
// tail query ([temporal.QueryFrom]: without their history and events, which a
// status row does not need and a long run's made each look cost its whole
// past); without names, of every run of this repository the server knows
// (and those of no repository: a graph's tasks).
func (f *Fleet) States(ctx context.Context, names []string) ([]*state.State, error) {
	vs, err := f.views(ctx, names)
	states := make([]*state.State, len(vs))
	for i := range vs {
		states[i] = &vs[i].State
	}
	return states, err
}

// views are the runs of [Fleet.States], each with what its step under way
// is doing ([temporal.View.Live]).
func (f *Fleet) views(ctx context.Context, names []string) ([]temporal.View, error) {
	if err := f.connect(ctx); err != nil {
		return nil, err
	}
	const noEvents = math.MaxInt
	var views []temporal.View
	if len(names) == 0 {
		keys, err := temporal.Names(ctx, f.c)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			// Another repository's runs of the same names are not this one's.
			if _, r := temporal.Unscoped(k); r != "" && r != f.repo {
				continue
			}
			v, err := temporal.QueryFrom(ctx, f.c, k, noEvents)
			if err != nil {
				return nil, err
			}
			views = append(views, v)
		}
	}
	for _, n := range names {
		v, _, err := temporal.FindFrom(ctx, f.c, n, f.repo, noEvents)
		if err != nil {
			return nil, err
		}
		views = append(views, v)
	}
	return views, nil
}

// Inbox lists the runs of the namespace that wait for a person.
func (f *Fleet) Inbox(ctx context.Context) ([]decision.Waiting, error) {
	if err := f.connect(ctx); err != nil {
		return nil, err
	}
	return temporal.Waiting(ctx, f.c)
}

// Report is the report of the run name, or else of the task graph name, of
// this repository; a run on Temporal is named, and has no earlier runs to
// report (runID, when not "", is the run's own).
func (f *Fleet) Report(ctx context.Context, name, runID string, _ int) (report.Run, error) {
	if name == "" {
		return report.Run{}, usageError("name the run to report: agentloop report NAME ('agentloop status' lists them)")
	}
	refused := usageError("--run reads a run folder of the local state folder; a run on Temporal is reported by its name")
	if err := f.connect(ctx); err != nil {
		return report.Run{}, err
	}
	v, _, err := f.find(ctx, name)
	if runID != "" && (err != nil || runID != v.State.RunID) {
		return report.Run{}, refused // its own run ID names the run (an issue's pull request asks it so)
	}
	if err != nil {
		r, gerr := f.graphReport(ctx, name)
		switch {
		case gerr == nil:
			return r, nil
		case !errors.Is(gerr, temporal.ErrNoGraph):
			return report.Run{}, gerr
		}
		return report.Run{}, err
	}
	return report.Run{State: &v.State, Events: v.Events, Escalation: v.Escalation}, nil
}

// graphReport is the report of the task graph name of this repository on the
// server: its tasks as the graph's query has them, a running task that waits
// for guidance shown escalated with its run's reason.
func (f *Fleet) graphReport(ctx context.Context, name string) (report.Run, error) {
	v, err := temporal.QueryGraph(ctx, f.c, name, f.repo)
	if err != nil {
		return report.Run{}, err
	}
	outcomes := make(map[string]tasks.Outcome, len(v.Outcomes))
	for id, o := range v.Outcomes {
		outcomes[id] = o
	}
	running := map[string]bool{}
	for _, id := range v.Running {
		rv, _, err := temporal.Find(ctx, f.c, tasks.TaskRunName(name, id), f.repo)
		if err != nil || !rv.Waiting {
			running[id] = true
			continue
		}
		st := rv.State
		st.Status = state.StatusEscalated
		outcomes[id] = graph.OutcomeOf(&st, tasks.TaskBranch(name, id))
	}
	return report.TaskGraph(name, v.File.Path, v.File.Tasks, outcomes, running)
}

// Status is a row per run of this repository on the server (those named
// name, when not ""), read through their workflows' query.
func (f *Fleet) Status(ctx context.Context, name, runID string) ([]report.StatusRow, string, error) {
	if runID != "" {
		return nil, "", usageError("--run reads a run folder of the local state folder; a run on Temporal is shown by its name")
	}
	var names []string
	if name != "" {
		names = []string{name}
	}
	states, err := f.States(ctx, names)
	if err != nil {
		return nil, "", err
	}
	return report.StatusRows(states, f.sh.Now()), fmt.Sprintf("No runs on the Temporal server at %s yet. Start one with 'agentloop run --engine temporal'.", f.Address()), nil
}

// Look is the view of `agentloop watch --engine temporal`: the runs of this
// repository on the server, through their workflows' query, and what waits
// for a person in its namespace. The view may read again before a read ends
// (its refresh key): the reads take turns on the one connection.
func (f *Fleet) Look(ctx context.Context, now time.Time) (report.View, error) {
	f.reading.Lock()
	defer f.reading.Unlock()
	vs, err := f.views(ctx, nil)
	if err != nil {
		return report.View{At: now}, err
	}
	states, lives := make([]*state.State, len(vs)), make([]state.LiveStatus, len(vs))
	for i := range vs {
		states[i], lives[i] = &vs[i].State, vs[i].Live
	}
	needs, err := f.Inbox(ctx)
	return Remote(states, lives, needs, now), err
}

// Clean plans the clean of the state folder and the repository, the runs on
// the server weighed by how their last workflow stands, and the checkpoint
// refs of o.Remote cleaned too.
func (f *Fleet) Clean(ctx context.Context, o CleanOptions) (*CleanPlan, error) {
	if err := f.connect(ctx); err != nil {
		return nil, err
	}
	runs, err := temporal.CleanRuns(ctx, f.c)
	if err != nil {
		return nil, err
	}
	o.Engine, o.EngineAsked = runs, true
	return PlanClean(ctx, o)
}
