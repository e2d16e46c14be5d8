package app

import (
	"context"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/session"
	"github.com/agentloop/agentloop/internal/temporal"
)

// Server are the settings of the server a run or graph started here keeps
// for its steps and the commands it names.
type Server struct {
	// WorkerQueue is the queue of the worker the run's steps are pinned to
	// (run --worker-queue); "" for any.
	WorkerQueue string
	// Heartbeat is how long a step may go without a sign of life (0: the
	// engine's default).
	Heartbeat time.Duration
	// Flags are the command-line flags naming the server, for the commands
	// the run names ([temporal.RunInput.ServerFlags]).
	Flags string
}

// engineFlags are the flags that put a command on the Temporal engine and
// server of s.
func (s Server) engineFlags() string {
	return strings.TrimSpace("--engine temporal " + s.Flags)
}

// Run is `agentloop run --engine temporal`: the workflow of the run of p
// starts on the server and this process follows it until it ends or asks a
// human.
func (f *Fleet) Run(ctx context.Context, p *plan.Plan, o Server) (Outcome, error) {
	if err := f.connect(ctx); err != nil {
		return Outcome{}, err
	}
	in, err := temporal.NewInput(p, temporal.NewState(p, f.sh.Now()), o.WorkerQueue)
	if err != nil {
		return Outcome{}, &session.UsageError{Err: err}
	}
	in.HeartbeatTimeout, in.ServerFlags = o.Heartbeat, o.Flags
	if in.Repo, err = temporal.RepoID(p.StateDir, p.WorkDir); err != nil {
		return Outcome{}, err
	}
	if err := temporal.Start(ctx, f.c, f.s, in, f.sh.Now()); err != nil {
		return Outcome{}, err
	}
	screen, err := f.sh.Screen(p)
	if err != nil {
		return Outcome{}, err
	}
	key := temporal.Scoped(p.Name, in.Repo)
	screen.Linef("Run %s (%s) started on Temporal at %s, workflow %s", p.Name, in.Run.RunID, f.s.Address, temporal.WorkflowID(key))
	w, done, err := f.watch(ctx, p, in.Run.RunID, screen)
	if err != nil {
		return Outcome{}, err
	}
	defer done()
	return f.followRun(ctx, screen, key, 0, w)
}
