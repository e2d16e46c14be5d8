package cli

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// stopOptions are the flags of `stop`.
type stopOptions struct {
	now      bool
	stateDir string
	engine   engineOptions
}

// AddFlags adds the flags of `stop` to fs.
func (o *stopOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.now, "now", false, "stop at once, as Ctrl-C in the run's terminal does (the current attempt is cut)")
	fs.StringVar(&o.stateDir, "state-dir", "", "state folder (default .agentloop, or state_dir from the configuration)")
	o.engine.AddFlags(fs)
	o.engine.AddConfigFlag(fs)
}

func newStopCmd(d Deps) *cobra.Command {
	var o stopOptions
	cmd := &cobra.Command{
		Use:   "stop NAME [--now]",
		Short: "End a running loop after its current iteration (--now: at once)",
		Long: `End the run NAME (a run, or a graph's task GRAPH-TASK) that runs in another
terminal: when its current iteration ends, the loop stops, saves its state and
ends interrupted (exit 130 there), to be continued with agentloop resume NAME.
With --now it stops at once, as Ctrl-C in its terminal does: the current attempt
is cut and kept, and resume runs the iteration again.

With --engine temporal the run is the workflow of NAME on the server: it ends
after its current iteration as well; --now cancels its workflow, which stops
its agent on the worker. Its follower exits 130 either way.` + exitStatus(
			exitSuccess,
			exitLine{ExitFailure, "error: no run NAME, or it is not running"},
			exitUsageLine),
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return runStop(cmd.Context(), o, d, args[0]) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runStop is `agentloop stop NAME`.
func runStop(ctx context.Context, o stopOptions, d Deps, name string) error {
	eng, err := chooseEngine(ctx, d, o.engine, engineUse{stateDir: o.stateDir})
	if err != nil {
		return err
	}
	defer eng.Close()
	return eng.Stop(ctx, name, o.now)
}
