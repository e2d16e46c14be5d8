package app

import (
	"context"
	"io"
	"path/filepath"

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
type runStore struct {
	store  *state.Store
	runDir string
}

func (r runStore) Save(st *state.State) error { return r.store.Save(st) }

var _ engine.RecordGuard = (*gitx.Workspace)(nil)
