package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/watch"
)

// watchOptions are the flags of `watch`.
type watchOptions struct {
	once     bool
	interval time.Duration
	stateDir string
	engine   engineOptions
	// given are the engine's flags given on the command line, as each
	// answer's command gets them.
	given []string
}

// AddFlags adds the flags of `watch` to fs.
func (o *watchOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.once, "once", false, "show the view once and exit")
	fs.DurationVar(&o.interval, "interval", 2*time.Second, "time between two refreshes")
	fs.StringVar(&o.stateDir, "state-dir", "", "state folder (default .agentloop, or state_dir from the configuration)")
	o.engine.AddFlags(fs)
	o.engine.AddConfigFlag(fs)
}

// engineFlags are the flags of fs given on the command line that choose the
// engine and its server, as "--name=value".
func engineFlags(fs *pflag.FlagSet) []string {
	var eng engineOptions
	own := pflag.NewFlagSet("engine", pflag.ContinueOnError)
	eng.AddFlags(own)
	eng.AddConfigFlag(own)
	var given []string
	fs.Visit(func(f *pflag.Flag) {
		if own.Lookup(f.Name) != nil {
			given = append(given, "--"+f.Name+"="+f.Value.String())
		}
	})
	return given
}

func newWatchCmd(d Deps) *cobra.Command {
	var o watchOptions
	cmd := &cobra.Command{
		Use:   "watch [--once] [--interval D] [--engine temporal]",
		Short: "A live view of every run and graph task of this repository, and what waits for you",
		Long: `Show every run and graph task of this repository, refreshed until Ctrl-C: its
status, iteration, phase (agent, gates, review, waiting for you) and how long it has
been in it, tokens and cost with the running agent's usage as its CLI streams it,
the last decision, the elapsed time and the tool call the agent runs now; then
what waits for you, each with its question and the command of each answer (as
'agentloop inbox'). With --engine temporal: the runs of this repository on the
Temporal server, as their workflows tell them (a run waiting for an answer is in
the phase "waiting for you"), and what waits for you in its namespace.

On a terminal it is a live view with keys:
  up/down, j/k   select a run          n      the next run that waits for you
  enter          open its escalation: question, options, escalation.md (esc: back)
  g              guide it: an escalated run is resumed with your text (it goes on
                 after watch ends), a running one takes it in its next iteration
  a / x          accept / abort an escalated run (asks y/n)
  s / S          stop the run after its iteration / now (asks y/n)
  r              refresh now            q, Ctrl-C   quit
Each key runs the same command a person would type (agentloop resume NAME
--guidance TEXT|--accept|--abort, guide NAME TEXT, stop NAME [--now]), with the
engine's flags given to watch, in the background, its output in the state
folder's watch/NAME.log.
Otherwise (not a terminal, or --once) each refresh is printed as a plain table
after the last, under its time.` + exitStatus(exitSuccess, exitLine{ExitFailure, "error: the state folder or the server cannot be read"}, exitUsageLine),
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.given = engineFlags(cmd.Flags())
			return runWatch(cmd.Context(), o, d)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runWatch is `agentloop watch`.
func runWatch(ctx context.Context, o watchOptions, d Deps) error {
	if o.interval < 100*time.Millisecond {
		return usageError("--interval %s is too short: give 100ms or more", o.interval)
	}
	dir, err := stateDir(d, o.stateDir)
	if err != nil {
		return err
	}
	eng, err := chooseEngine(ctx, d, o.engine, engineUse{stateDir: o.stateDir})
	if err != nil {
		return err
	}
	defer eng.Close()
	from := eng.Where()
	look := func(now time.Time, warn Deps) (report.View, error) {
		v, err := eng.Look(ctx, now)
		return v, skipCorrupt(warn, err)
	}
	redraw := !o.once && canRedraw(d, d.Stdout)
	if in, ok := d.Stdin.(io.Writer); redraw && ok && d.IsTerminal(in) {
		return runLiveView(ctx, o, d, dir, func(now time.Time) (report.View, error) {
			return look(now, Deps{Stderr: io.Discard})
		})
	}
	wd, _ := d.Getwd()
	for {
		now := d.Now()
		v, err := look(now, d)
		if err != nil && len(v.Runs) == 0 {
			return fmt.Errorf("read runs in %s: %w", from, err)
		}
		var b bytes.Buffer
		switch {
		case redraw: // keys need a terminal on stdin too
			b.WriteString("\x1b[H\x1b[2J") // home, clear: one frame replaces the last
		case !o.once:
			fmt.Fprintf(&b, "[%s]\n", now.Format("15:04:05"))
		}
		_ = report.WatchTable(&b, v.Runs, now)
		b.WriteString("\n")
		_ = app.WriteInbox(&b, v.NeedsYou, now, wd)
		if _, err := d.Stdout.Write(b.Bytes()); err != nil || o.once {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(o.interval):
		}
	}
}

// runLiveView is `agentloop watch` on a terminal: the live view, with keys.
// Each answer runs agentloop itself (resume, guide, stop) in a session of its
// own on the same state folder, its output in the folder's watch/NAME.log: the
// view never waits on it, and a run resumed from it goes on after it closes.
func runLiveView(ctx context.Context, o watchOptions, d Deps, stateDir string, look func(time.Time) (report.View, error)) error {
	self, err := d.Executable()
	if err != nil {
		return fmt.Errorf("find agentloop's own program to answer runs with: %w", err)
	}
	wd, err := d.Getwd()
	if err != nil {
		return err
	}
	env := append(d.Environ(), "AGENTLOOP_STATE_DIR="+stateDir)
	m := watch.New(watch.Options{
		Look: look,
		Start: func(a watch.Action) (watch.Started, error) {
			log := filepath.Join(stateDir, "watch", a.Run+".log")
			p, err := app.StartDetached(append([]string{self}, a.Args...), wd, env, log)
			if err != nil {
				return watch.Started{}, err
			}
			return watch.Started{PID: p.PID, Log: app.RelPath(wd, log), Wait: func() (int, string, string) {
				code, signal := p.Wait()
				return code, signal, watch.LastLine(log)
			}}, nil
		},
		Now: d.Now, Interval: o.interval, Base: wd, Args: o.given,
	})
	_, err = tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(d.Stdin), tea.WithOutput(d.Stdout),
		tea.WithoutSignalHandler(), tea.WithEnvironment(d.Environ())).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		err = nil // Ctrl-C, SIGTERM: the view just ends
	}
	for _, g := range m.Goes() {
		fmt.Fprintf(d.Stdout, "%s goes on (pid %d); its output: %s\n", g.Run, g.PID, g.Log)
	}
	return err
}
