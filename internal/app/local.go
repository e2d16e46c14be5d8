package app

import (
	"context"
	"io"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/ui"
)

// local assembles the local engine for the session from its plan.
func (s *Session) local(ctx context.Context, runDir string, events *state.EventLog) *engine.Local {
	o := engine.Options{
		RunID: s.st.RunID, RunDir: runDir, LivePath: s.store.LivePath(s.p.Name),
		Store: runStore{store: s.store, runDir: runDir}, Screen: s.screen, Warnf: s.screen.Warnf, Now: s.pr.Now, Log: s.log,
		Workspace: s.work,
	}
	s.work = nil // the first engine's: another starts afresh
	if events != nil {
		o.Events = events
	}
	if s.p.Verbose {
		o.Echo = echoWriter{w: s.pr.Progress(false), screen: s.screen}
	}
	l := engine.New(ctx, s.p.Parts(o.Log, o.RunDir), o)
	if s.p.Budgets.On {
		cfg := ""
		for _, f := range s.p.ConfigFiles {
			if filepath.Base(f) == "config.yaml" { // the user's own: caps live there
				cfg = f
			}
		}
		l.Spend = &engine.SharedSpend{
			Path: s.p.LedgerPath, Caps: s.p.Budgets.Caps, Config: cfg, Run: s.p.WorkDir + " " + s.p.Name, Graph: s.p.Graph,
			Keys: s.p.Keys, Reviewer: s.p.ReviewerKey, Poll: s.p.BudgetPoll, First: s.p.Budgets.FirstIterationUSD,
			Optional: !s.p.Budgets.Given,
		}
	}
	return l
}

// echoWriter streams agent output to the terminal, clearing the status line first.
type echoWriter struct {
	w      io.Writer
	screen *ui.Printer
}

func (e echoWriter) Write(b []byte) (int, error) {
	e.screen.ClearStatus()
	return e.w.Write(b)
}

// runStore saves the run's state in the state folder; the store appends its
// history (and, when a session ends, its final state) to the run folder's
// log, so an older run's final state is still there after a new run of the
// same name replaces the state file.
//
// With ended set, a save that ends the session (its status an end) stamps
// the session's end on it first, and says in *ended whether the last save
// was such a one: the session then has nothing of its own to save after the
// loop, whose last save was its last (a second one cost a history entry and
// three fsyncs).
type runStore struct {
	store  *state.Store
	runDir string
	now    func() time.Time
	ended  *bool
}

func (r runStore) Save(st *state.State) error {
	end := r.ended != nil && st.Status.Ended() && len(st.Sessions) > 0
	if end {
		st.Sessions[len(st.Sessions)-1].EndedAt = r.now()
	}
	err := r.store.Save(st)
	if r.ended != nil {
		*r.ended = end && err == nil
	}
	return err
}

var _ engine.RecordGuard = (*gitx.Workspace)(nil)
