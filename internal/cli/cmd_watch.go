package cli

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/inbox"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/session"
)

// watchOptions are the flags of `watch`.
type watchOptions struct {
	once     bool
	interval time.Duration
	stateDir string
}

// AddFlags adds the flags of `watch` to fs.
func (o *watchOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.once, "once", false, "show the view once and exit")
	fs.DurationVar(&o.interval, "interval", 2*time.Second, "time between two refreshes")
	fs.StringVar(&o.stateDir, "state-dir", "", "state folder (default .agentloop, or state_dir from the configuration)")
}

func newWatchCmd(d Deps) *cobra.Command {
	var o watchOptions
	cmd := &cobra.Command{
		Use:   "watch [--once] [--interval D]",
		Short: "A live view of every run and graph task of this repository, and what waits for you",
		Long: `Show every run and graph task of this repository, refreshed until Ctrl-C: its
status, iteration, phase (agent, gates, review, waiting for you) and how long it has
been in it, tokens and cost with the running agent's usage as its CLI streams it,
the last decision and the elapsed time; then what waits for you, each with its
question and the command of each answer (as 'agentloop inbox'). On a terminal the
view is redrawn in place; otherwise each refresh is printed after the last, under
its time. Answer from another terminal: agentloop guide NAME TEXT, agentloop stop
NAME, agentloop resume NAME --guidance TEXT.` + exitStatus(exitSuccess, exitLine{ExitFailure, "error: the state folder cannot be read"}, exitUsageLine),
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runWatch(cmd.Context(), o, d) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runWatch is `agentloop watch`.
func runWatch(ctx context.Context, o watchOptions, d Deps) error {
	if o.interval < 100*time.Millisecond {
		return usageError("--interval %s is too short: give 100ms or more", o.interval)
	}
	store, err := openStore(d, o.stateDir)
	if err != nil {
		return err
	}
	redraw := !o.once && canRedraw(d, d.Stdout)
	wd, _ := d.Getwd()
	for {
		now := d.Now()
		v, err := session.Look(store.Root, now)
		if err := skipCorrupt(d, err); err != nil && len(v.Runs) == 0 {
			return fmt.Errorf("read runs in %s: %w", store.Root, err)
		}
		var b bytes.Buffer
		switch {
		case redraw:
			b.WriteString("\x1b[H\x1b[2J") // home, clear: one frame replaces the last
		case !o.once:
			fmt.Fprintf(&b, "[%s]\n", now.Format("15:04:05"))
		}
		_ = report.WatchTable(&b, v.Runs, now)
		b.WriteString("\n")
		_ = inbox.Write(&b, v.NeedsYou, now, wd)
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
