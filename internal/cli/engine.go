package cli

import (
	"context"
	"log/slog"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/ui"
)

// engineUse is what a command gives the engine it chooses.
type engineUse struct {
	// lo are the loop flags given now: how a run is shown and logged.
	lo loopOptions
	// shown are the flags a run of p is shown with (a resumed run's recorded
	// ones, those given now on top); nil: lo.
	shown func(args []string) (loopOptions, error)
	// stateDir is --state-dir: where the local engine's runs are ("": the
	// configuration's, else .agentloop).
	stateDir string
	// starts says the command starts runs with lo's flags, which a remote
	// engine keeps where no secret belongs.
	starts bool
}

// chooseEngine is the application on the engine o names (--engine, else
// AGENTLOOP_ENGINE, else local): the only place the command line tells the
// engines apart. An unknown engine is a usage error, and so is the Temporal
// engine in a build without it.
func chooseEngine(ctx context.Context, d Deps, o engineOptions, u engineUse) (app.Engine, error) {
	switch e := o.engineName(d); e {
	case "local":
		dir, err := stateDir(d, u.stateDir)
		if err != nil {
			return nil, err
		}
		return app.NewLocal(shell(ctx, d, u), dir), nil
	case "temporal":
		if u.starts {
			if err := u.lo.noSecretForFleet(); err != nil {
				return nil, err
			}
		}
		return temporalEngine(ctx, d, o, u)
	default:
		return nil, usageError("--engine %q: want local or temporal", e)
	}
}

// shell is what the application touches of this process, and how a run is
// shown, logged and notified as u's flags say.
func shell(ctx context.Context, d Deps, u engineUse) app.Shell {
	shown := u.shown
	if shown == nil {
		shown = func([]string) (loopOptions, error) { return u.lo, nil }
	}
	return app.Shell{
		Process: process(d), Getenv: d.Getenv, Host: app.NewHost(ctx, hostOf(d)),
		Screen: func(s app.Shown) (*ui.Printer, error) {
			lo, err := shown(s.Args)
			if err != nil {
				return nil, err
			}
			return newScreen(d, lo, s.LogFormat), nil
		},
		Log: func(s app.Shown) *slog.Logger {
			lo, err := shown(s.Args)
			if err != nil {
				lo = u.lo
			}
			return newLogger(d, lo)
		},
		Notifying: app.Notifying(app.NotifyOptions{Getenv: d.Getenv, LookPath: d.LookPath, Now: d.Now, Environ: d.Environ, Stderr: d.Stderr},
			func(s app.Shown) (*slog.Logger, error) {
				lo, err := shown(s.Args)
				if err != nil {
					return nil, err
				}
				return newLogger(d, lo), nil
			}),
	}
}

// followed maps how what a command followed stands to its exit
// ([app.ExitStatus]).
func followed(out app.Outcome, err error) error {
	if err != nil {
		return err
	}
	if code := app.ExitStatus(out); code != ExitOK || out.Graph != nil {
		return &ExitError{Code: code}
	}
	return nil
}

// serverFlags are the flags given on the command line that reach the Temporal
// server, for the commands a run names for later ([app.Server]).
func (o *loopOptions) serverFlags() string {
	var flags []string
	for _, g := range o.given {
		if isServerFlag(g.name) {
			flags = append(flags, "--"+g.name+"="+g.values[0])
		}
	}
	return strings.Join(flags, " ")
}

// isServerFlag reports whether the flag name says where the Temporal server
// is and how to reach it.
func isServerFlag(name string) bool {
	return slices.Contains(connFlagNames, name) || slices.Contains([]string{"temporal-address", "temporal-namespace", "temporal-task-queue", "config"}, name)
}
