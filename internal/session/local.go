package session

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/diff"
	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/ui"
)

// local assembles the local engine for the session from its plan.
func (s *Session) local(ctx context.Context, runDir string, events *state.EventLog) *engine.Local {
	p := s.p
	l := &engine.Local{
		Name: p.Name, RunID: s.st.RunID, WorkDir: p.WorkDir, RunDir: runDir, Task: p.TaskText(),
		Agent:    p.AgentRunner(s.log),
		Gates:    p.GateRunner(),
		Reviewer: p.ReviewerAgent(s.log),
		Prompt:   p.Composer(runDir),
		Store:    runStore{store: s.store, runDir: runDir},
		Screen:   s.screen, Now: s.pr.Now, Sleep: engine.SleepContext, Log: s.log,
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
	if events != nil {
		l.Events = events
	}
	if p.Verbose {
		l.Echo = echoWriter{w: s.pr.Stdout, screen: s.screen}
	}
	repo := gitx.IsRepo(ctx, p.WorkDir)
	if p.Proc.Git.Checkpoint && repo {
		l.Work = &gitx.Workspace{
			Dir: p.WorkDir, Commit: p.Proc.Git.Commit, Push: p.Proc.Git.Push, Remote: p.Proc.Git.Remote,
			Analysis: diff.Options{ProtectedPaths: p.Proc.Escalation.ProtectedPaths, Scope: p.Scope},
		}
	} else if p.Proc.Git.Push || p.Proc.Git.Commit {
		why := p.WorkDir + " is not a git work tree"
		if repo {
			why = "they need git.checkpoint: true (the default), which this procedure turned off"
		}
		s.screen.Warnf("git commit/push is configured but skipped: %s", why)
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

// runStore saves the state in the state folder and, once a session of the run
// has ended, a copy in the run folder, so an older run's final state is still
// there after a new run of the same name replaces the state file.
type runStore struct {
	store  *state.Store
	runDir string
}

func (r runStore) Save(st *loop.State) error {
	if err := r.store.Save(st); err != nil {
		return err
	}
	if st.Status == loop.StatusRunning {
		return nil
	}
	b, err := os.ReadFile(r.store.StatePath(st.Name))
	if err != nil {
		return fmt.Errorf("copy the state into the run folder: %w", err)
	}
	if err := state.WriteFileAtomic(filepath.Join(r.runDir, "state.json"), b, 0o600); err != nil {
		return fmt.Errorf("copy the state into the run folder: %w", err)
	}
	return nil
}
