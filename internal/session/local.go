package session

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/diff"
	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/ui"
)

// local assembles the local engine for the session from its plan.
func (s *Session) local(ctx context.Context, runDir string, events *state.EventLog) *engine.Local {
	o := EngineOptions{
		RunID: s.st.RunID, RunDir: runDir, LivePath: s.store.LivePath(s.p.Name),
		Store: runStore{store: s.store, runDir: runDir}, Screen: s.screen, Warnf: s.screen.Warnf, Now: s.pr.Now, Log: s.log,
	}
	if events != nil {
		o.Events = events
	}
	if s.p.Verbose {
		o.Echo = echoWriter{w: s.pr.Progress(false), screen: s.screen}
	}
	l := NewEngine(ctx, s.p, o)
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

// EngineOptions are what [NewEngine] takes besides the plan: where the run
// keeps its files and what it reports to.
type EngineOptions struct {
	RunID    string
	RunDir   string
	LivePath string // see [engine.Local.LivePath]; "": none
	Store    engine.Store
	Events   engine.EventLog                  // nil: events are not recorded
	Screen   engine.Screen                    // nil: nothing is shown
	Warnf    func(format string, args ...any) // a warning for the person; nil: logged
	Echo     io.Writer                        // the agent's output, nil: not echoed
	Now      func() time.Time
	Log      *slog.Logger
}

// NewEngine assembles the local engine of a run from its plan: the steps of
// both engines (the Temporal engine's activities run it too).
func NewEngine(ctx context.Context, p *plan.Plan, o EngineOptions) *engine.Local {
	l := &engine.Local{
		Name: p.Name, RunID: o.RunID, WorkDir: p.WorkDir, RunDir: o.RunDir, LivePath: o.LivePath, Task: p.TaskText(),
		Agent:    p.AgentRunner(o.Log),
		Gates:    p.GateRunner(),
		Reviewer: p.ReviewerAgent(o.Log),
		Prompt:   p.Composer(o.RunDir),
		Store:    o.Store, Events: o.Events, Screen: o.Screen, Echo: o.Echo,
		Now: o.Now, Sleep: engine.SleepContext, Log: o.Log,
		RateLimit: engine.RateLimitPolicy{
			MaxWait: p.RateLimitWait, MaxTransient: 2,
			Backoff: func(attempt int) time.Duration {
				return agent.Backoff(attempt, p.BackoffBase, 5*time.Minute, rand.Float64())
			},
		},
		TokenBudget: int(p.Proc.Limits.TokenBudget),
	}
	if e := p.Proc.Escalation; e.IncludeDiff {
		l.EscalationDiffLines = e.MaxDiffLines
		if l.EscalationDiffLines <= 0 {
			l.EscalationDiffLines = 300
		}
	}
	for _, a := range p.Fallback {
		l.RateLimit.Fallback = append(l.RateLimit.Fallback, a.Name)
	}
	ws := &gitx.Workspace{
		Dir: p.WorkDir, Commit: p.Proc.Git.Commit, Push: p.Proc.Git.Push, Remote: p.Proc.Git.Remote,
		Analyze: func(patch string) evidence.DiffFacts {
			return diff.Analyze(patch, diff.Options{ProtectedPaths: p.Proc.Escalation.ProtectedPaths, Scope: p.Scope})
		},
	}
	// Whether the folder is a git work tree is a fact of the folder, asked
	// even when a signal has come: a session interrupted as it starts must
	// still keep a cut attempt under its ref, not take git to be absent.
	repo := ws.Open(context.WithoutCancel(ctx)) == nil
	warn := func(msg string) {
		if o.Warnf != nil {
			o.Warnf("%s", msg)
		} else {
			o.Log.Warn(msg)
		}
	}
	if p.Proc.Git.Checkpoint && !repo {
		warn(p.WorkDir + " is not a git repository: no checkpoints are kept, so a failed attempt is not rolled back and an escalation has no diff ('git init' and a first commit turn them on)")
	}
	if p.Proc.Git.Checkpoint && repo {
		l.Work = ws
	} else if p.Proc.Git.Push || p.Proc.Git.Commit {
		why := p.WorkDir + " is not a git work tree"
		if repo {
			why = "they need git.checkpoint: true (the default), which this procedure turned off"
		}
		warn("git commit/push is configured but skipped: " + why)
	}
	return l
}

var _ engine.Workspace = (*gitx.Workspace)(nil)

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
