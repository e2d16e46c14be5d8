//go:build temporal

package app

import (
	"context"
	"math"
	"time"

	"github.com/agentloop/agentloop/internal/notify"
	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/ui"
)

// graphTell sends the notifications of a graph followed here, as a local
// graph's process does: each task's (needs_you when it waits for a person,
// its end), taken from its run's events, and the graph's end, each once: the
// events of a task's run are told from the first this follower has not told.
// A nil graphTell tells nothing.
type graphTell struct {
	n       *notify.Notifier
	repo    string // the graph's repository (its directory)
	screen  *ui.Printer
	watches map[string]*notify.Watch // by task ID
	told    map[string]int           // events of each task's run told
	// runs are the tasks whose runs this graph's workflow runs (the others
	// were done before it, and told then).
	runs map[string]bool
}

// tellGraph is the notifications' teller of a graph of the repository repo
// followed here, to the receivers of cfg; nil when none is configured. done
// waits for the deliveries under way (never nil).
func (f *Fleet) tellGraph(ctx context.Context, cfg target.Config, repo string, runs map[string]bool, screen *ui.Printer) (*graphTell, func(), error) {
	n, done, err := f.sh.Notifying(ctx, &plan.Plan{Notify: cfg})
	if err != nil {
		return nil, func() {}, err
	}
	if n == nil {
		return nil, done, nil
	}
	return &graphTell{n: n, repo: repo, screen: screen, watches: map[string]*notify.Watch{}, told: map[string]int{}, runs: runs}, done, nil
}

// task tells the events of the run of task id (its view rv) not told yet;
// ended says the task's run is over: its end is then told.
func (g *graphTell) task(v temporal.GraphView, id string, rv temporal.View, ended bool) {
	if g == nil || !g.runs[id] {
		return
	}
	w, ok := g.watches[id]
	if !ok {
		run := notify.Run{Name: tasks.TaskRunName(v.Name, id), ID: rv.State.RunID, Procedure: rv.State.Procedure,
			Graph: v.Name, Task: id, Repo: g.repo, Engine: "temporal"}
		w = g.n.Watch(run, g.screen.Event)
		g.watches[id] = w
	}
	for _, ev := range rv.Events[min(max(g.told[id]-rv.EventsFrom, 0), len(rv.Events)):] {
		w.Event(ev)
	}
	g.told[id] = max(g.told[id], rv.EventsFrom+len(rv.Events))
	if ended {
		w.End(nil)
	}
}

// from is the index of the first event of the task id's run not yet told:
// where a look at the run reads its events from ([temporal.FindFrom]).
func (g *graphTell) from(id string) int {
	if g == nil || !g.runs[id] {
		return math.MaxInt // nothing of it is told: no event is read
	}
	return g.told[id]
}

// end tells how the graph of v ended.
func (g *graphTell) end(v temporal.GraphView, now func() time.Time) {
	if g == nil || v.Interrupted {
		return
	}
	g.n.Send(GraphDone(v.Name, g.repo, v.File.Tasks, v.Outcomes, now()), g.screen.Event)
}

// tellGraphFrom is the notifications' teller, to the receivers of cfg, of
// the graph name (repository identity repoID, directory dir) followed from now
// on: the tasks it ended before are not told, nor the events their runs
// recorded before (another follower told them).
func (f *Fleet) tellGraphFrom(ctx context.Context, cfg target.Config, name, repoID, dir string, screen *ui.Printer) (*graphTell, func(), error) {
	v, err := temporal.QueryGraph(ctx, f.c, name, repoID)
	if err != nil {
		return nil, func() {}, err
	}
	runs := map[string]bool{}
	for _, t := range v.File.Tasks {
		if o, ok := v.Outcomes[t.ID]; !ok || o.State == tasks.StatePending {
			runs[t.ID] = true
		}
	}
	g, done, err := f.tellGraph(ctx, cfg, dir, runs, screen)
	if g == nil {
		return nil, done, err
	}
	for id := range runs {
		if rv, _, err := temporal.Find(ctx, f.c, tasks.TaskRunName(name, id), repoID); err == nil {
			g.told[id] = len(rv.Events)
		}
	}
	return g, done, nil
}
