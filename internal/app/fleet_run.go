//go:build temporal

package app

import (
	"context"
	"strings"

	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/ui"
)

// engineFlags are the flags that put a command on the Temporal engine and
// server of s.
func engineFlags(s Server) string {
	return strings.TrimSpace("--engine temporal " + s.Flags)
}

// Run is `agentloop run --engine temporal`: the workflow of the run of p
// starts on the server and this process follows it until it ends or asks a
// human.
func (f *Fleet) Run(ctx context.Context, p *plan.Plan, o Server) (Outcome, error) {
	o = f.placed(o)
	screen, key, runID, err := f.start(ctx, p, o)
	if err != nil {
		return Outcome{}, err
	}
	w, done, err := f.watch(ctx, p, runID, screen)
	if err != nil {
		return Outcome{}, err
	}
	defer done()
	return f.followRun(ctx, screen, key, 0, w)
}

// Detach is `agentloop run --engine temporal --detach`: the workflow of the
// run of p starts on the server, and this process says how to follow it
// ([Fleet.Follow]) and returns. Nothing follows the run until then: the
// notifications a follower sends ([Fleet.watch]) wait for one.
func (f *Fleet) Detach(ctx context.Context, p *plan.Plan, o Server) error {
	o = f.placed(o)
	screen, _, _, err := f.start(ctx, p, o)
	if err != nil {
		return err
	}
	screen.Linef("Follow it with: agentloop follow %s %s", p.Name, engineFlags(o))
	if !p.Notify.Empty() {
		screen.Warnf("Its notifications are sent by the command following it: none until 'agentloop follow %s' does", p.Name)
	}
	return nil
}

// start starts the workflow of the run of p and says so; it returns the
// screen of p, the run's key ([temporal.Scoped]) and its run ID.
func (f *Fleet) start(ctx context.Context, p *plan.Plan, o Server) (screen *ui.Printer, key, runID string, err error) {
	if err := f.connect(ctx); err != nil {
		return nil, "", "", err
	}
	in, err := temporal.NewInput(p, temporal.NewState(p, f.sh.Now()), o.WorkerQueue)
	if err != nil {
		return nil, "", "", &UsageError{Err: err}
	}
	in.HeartbeatTimeout, in.ServerFlags = o.Heartbeat, o.Flags
	if in.Repo, err = temporal.RepoID(p.StateDir, p.WorkDir); err != nil {
		return nil, "", "", err
	}
	if err := temporal.Start(ctx, f.c, f.s, in, f.sh.Now()); err != nil {
		return nil, "", "", err
	}
	if screen, err = f.sh.Screen(ShownOf(p)); err != nil {
		return nil, "", "", err
	}
	key = temporal.Scoped(p.Name, in.Repo)
	screen.Linef("Run %s (%s) started on Temporal at %s, workflow %s", p.Name, in.Run.RunID, f.s.Address, temporal.WorkflowID(key))
	return screen, key, in.Run.RunID, nil
}
