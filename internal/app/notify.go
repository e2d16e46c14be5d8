package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/notify"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/ui"
)

// watch is the notifications' watch of this session's events (nil: none
// configured). Each delivery and failure is recorded in the run's event log,
// which it opens for the line (a delivery may end after the session), and
// shown.
func (s *Session) watch(runDir string) *notify.Watch {
	host, _ := os.Hostname()
	run := notify.Run{Name: s.p.Name, ID: s.st.RunID, Procedure: s.p.Proc.Name, Graph: s.graph, Task: s.task,
		Repo: s.p.WorkDir, Host: host, Engine: "local"}
	return s.pr.Notify.Watch(run, appendTo(filepath.Join(runDir, "events.jsonl"), s.screen))
}

// toldLog is a run's event log whose events are also given to the watch.
type toldLog struct {
	log engine.EventLog // nil: events are not recorded
	w   *notify.Watch
}

func (t toldLog) Append(ev state.Event) error {
	var err error
	if t.log != nil {
		err = t.log.Append(ev)
	}
	t.w.Event(ev)
	return err
}

// tellWaiting ends the session's notifications: a run that waits for a
// person for a budget or its agent's setup gets its record (an escalation's
// was made when it escalated), then the run's end is told.
func (s *Session) tellWaiting(ctx context.Context, env *engine.Local, w *notify.Watch, out loop.Outcome, runErr error) {
	if rec, ok := s.needsYou(out, runErr); ok {
		_ = env.Emit(context.WithoutCancel(ctx), state.Event{Iteration: s.st.Iteration, Data: state.NeedsYou{NeedsYou: rec}})
	}
	w.End(failure(out, runErr))
}

// needsYou is the record of a run that stopped for a budget or for its
// agent's setup, which a person must raise or fix for it to go on.
func (s *Session) needsYou(out loop.Outcome, runErr error) (decision.NeedsYou, bool) {
	rec, ok := loop.Stopped(s.p.Name, "", s.st, s.p.Proc.Limits.Limits, out, runErr)
	rec.Graph, rec.Task = s.graph, s.task
	return rec, ok
}

// failure is agentloop's own failure in how a session ended, for the
// notification of its end: nil when the loop ended the run as it decided, a
// person interrupted it, or the run waits for a person.
func failure(out loop.Outcome, runErr error) error {
	if _, unsaved := errors.AsType[*loop.SaveError](runErr); unsaved {
		return runErr
	}
	if _, setup := errors.AsType[*agent.SetupError](runErr); setup || out.Status == state.StatusInterrupted {
		return nil
	}
	return runErr
}

// tellUnmerged keeps the record of the task t whose work could not be merged
// back (o says why) in its run's events, and tells a person.
func (g *graphRun) tellUnmerged(ctx context.Context, t tasks.Task, o tasks.Outcome, st *state.State) {
	c := g.commands(ctx)
	u := graph.ListUnfinished(g.name, []tasks.Task{t}, map[string]tasks.Outcome{t.ID: o}, nil, c)
	if len(u) == 0 {
		return
	}
	rec := graph.Unmerged(g.name, u[0], c)
	name := tasks.TaskRunName(g.name, t.ID)
	ev := state.Event{Time: g.pr.Now(), Iteration: st.Iteration, Data: state.NeedsYou{NeedsYou: rec}}
	path := filepath.Join(state.Store{Root: g.stateDir}.RunDir(name, st.RunID), "events.jsonl")
	appendTo(path, nil)(ev)
	host, _ := os.Hostname()
	run := notify.Run{Name: name, ID: st.RunID, Procedure: st.Procedure, Graph: g.name, Task: t.ID, Repo: g.repo, Host: host, Engine: "local"}
	if n, ok := notify.Of(run, ev, g.pr.Notify.Rules()); ok {
		g.pr.Notify.Send(n, appendTo(path, g.out))
	}
}

// tellEnd tells a person how the graph ended (not when it was interrupted:
// the person did it); the deliveries are the graph's events.
func (g *graphRun) tellEnd(out map[string]tasks.Outcome) {
	if g.pr.Notify == nil {
		return
	}
	g.pr.Notify.Send(GraphDone(g.name, g.repo, g.file.Tasks, out, g.pr.Now()), appendTo(graph.EventsPath(g.stateDir, g.name), g.out))
}

// GraphDone is the notification of the end, at ended, of the graph name of
// repository repo whose tasks ts ended as out says (a task not in it is
// pending), on any engine.
func GraphDone(name, repo string, ts []tasks.Task, out map[string]tasks.Outcome, ended time.Time) notify.Notification {
	gr := notify.Graph{Name: name, Repo: repo, Tasks: map[string]int{}}
	for _, t := range ts {
		o, ok := out[t.ID]
		s := tasks.StatePending
		if ok {
			s = o.State
		}
		gr.Tasks[string(s)]++
		if s == tasks.StateEscalated {
			gr.Waiting = append(gr.Waiting, t.ID)
		}
	}
	return notify.GraphDone(gr, graphStatus(gr.Tasks), ended)
}

// graphStatus is how a graph whose tasks ended in states ended: escalated
// when a task waits for a person, failed when one failed or was blocked,
// aborted when the budget left one unstarted, else succeeded.
func graphStatus(states map[string]int) string {
	switch {
	case states[string(tasks.StateEscalated)] > 0:
		return "escalated"
	case states[string(tasks.StateFailed)]+states[string(tasks.StateBlocked)] > 0:
		return "failed"
	case states[string(tasks.StateSkipped)]+states[string(tasks.StatePending)]+states[string(tasks.StateInterrupted)] > 0:
		return "aborted"
	}
	return "succeeded"
}

// appendTo records an event in the event log at path, opened for the line,
// and shows it on screen (nil: not shown).
func appendTo(path string, screen *ui.Printer) func(state.Event) {
	return func(ev state.Event) {
		if screen != nil {
			screen.Event(ev)
		}
		if err := state.EnsureDir(filepath.Dir(path)); err != nil {
			return
		}
		if l, err := state.OpenEvents(path); err == nil {
			_ = l.Append(ev)
			_ = l.Close()
		}
	}
}
