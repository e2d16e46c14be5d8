package engine

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/loop"
)

// Options are what [New] takes besides the run's parts: where the run
// keeps its files and what it reports to.
type Options struct {
	RunID    string
	RunDir   string
	LivePath string // see [Local.LivePath]; "": none
	Store    Store
	Events   EventLog                         // nil: events are not recorded
	Screen   Screen                           // nil: nothing is shown
	Warnf    func(format string, args ...any) // a warning for the person; nil: logged
	Echo     io.Writer                        // the agent's output, nil: not echoed
	Now      func() time.Time
	Log      *slog.Logger
	// Workspace is the run's work tree's, opened already (the session
	// learned the repository as it locked the work tree); nil: New makes one.
	Workspace *gitx.Workspace
}

// New assembles the local engine of a run from its parts (resolved from its
// plan, plan.Plan.Parts): the steps of both engines (the Temporal engine's
// activities run it too).
func New(ctx context.Context, p loop.Parts, o Options) *Local {
	l := &Local{
		Name: p.Name, RunID: o.RunID, WorkDir: p.WorkDir, RunDir: o.RunDir, LivePath: o.LivePath, Task: p.Task,
		Agent:    p.Agent,
		Gates:    p.Gates,
		Reviewer: p.Reviewer,
		Prompt:   p.Prompt,
		Store:    o.Store, Events: o.Events, Screen: o.Screen, Echo: o.Echo,
		Now: o.Now, Sleep: SleepContext, Log: o.Log,
		RateLimit: RateLimitPolicy{
			MaxWait: p.RateLimitWait, MaxTransient: 2, Fallback: p.Fallback,
			Backoff: func(attempt int) time.Duration {
				return agent.Backoff(attempt, p.BackoffBase, 5*time.Minute, rand.Float64())
			},
		},
		TokenBudget:         p.TokenBudget,
		EscalationDiffLines: p.EscalationDiffLines,
		SetAside:            p.SetAside,
	}
	ws := o.Workspace
	if ws == nil || ws.Dir != p.WorkDir {
		ws = &gitx.Workspace{Dir: p.WorkDir}
	}
	ws.Commit, ws.Push, ws.Remote, ws.Analyze = p.Git.Commit, p.Git.Push, p.Git.Remote, p.Analyze
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
	if p.Git.Checkpoint && !repo {
		warn(p.WorkDir + " is not a git repository: no checkpoints are kept, so a failed attempt is not rolled back and an escalation has no diff ('git init' and a first commit turn them on)")
	}
	if p.Git.Checkpoint && repo {
		l.Work = ws
	} else if p.Git.Push || p.Git.Commit {
		why := p.WorkDir + " is not a git work tree"
		if repo {
			why = "they need git.checkpoint: true (the default), which this procedure turned off"
		}
		warn("git commit/push is configured but skipped: " + why)
	}
	return l
}

var _ Workspace = (*gitx.Workspace)(nil)
