package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/report"
)

// statusOptions are the flags of `status`.
type statusOptions struct {
	json     bool
	stateDir string
	run      string
	engine   engineOptions
	waiting  bool
}

// AddFlags adds the flags of `status` to fs.
func (o *statusOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.json, "json", false, "print JSON")
	fs.StringVar(&o.stateDir, "state-dir", "", "state folder (default .agentloop, or state_dir from the configuration)")
	fs.BoolVar(&o.waiting, "waiting", false, "list only what waits for you, with its question and answers (as 'agentloop inbox')")
	fs.StringVar(&o.run, "run", "", "with NAME: its run of this id, an earlier one too, as it ended")
	o.engine.AddFlags(fs)
	o.engine.AddConfigFlag(fs)
}

func newStatusCmd(d Deps) *cobra.Command {
	var o statusOptions
	cmd := &cobra.Command{
		Use:   "status [NAME]",
		Short: "Show every run: state, iteration, last decision, spend, elapsed",
		Long: `Show every run in the state folder, or the run NAME: its state, iteration, last
decision, spend and elapsed time. A run whose process is gone shows as interrupted.
An unreadable state file is reported on standard error and left out.` + exitStatus(
			exitSuccess,
			exitLine{ExitFailure, "error, or no run named NAME"},
			exitUsageLine),
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return runStatus(cmd.Context(), o, d, args) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runStatus is `agentloop status [NAME]`.
func runStatus(ctx context.Context, o statusOptions, d Deps, args []string) error {
	if o.waiting {
		if len(args) > 0 {
			return usageError("--waiting lists every run that waits for you; it takes no NAME")
		}
		return runInbox(ctx, inboxOptions{json: o.json, stateDir: o.stateDir, engine: o.engine}, d)
	}
	if o.run != "" && len(args) == 0 {
		return usageError("--run needs the run's NAME: agentloop status NAME --run ID")
	}
	eng, err := chooseEngine(ctx, d, o.engine, engineUse{stateDir: o.stateDir})
	if err != nil {
		return err
	}
	defer eng.Close()
	name := ""
	if len(args) == 1 {
		name = args[0]
	}
	rows, none, err := eng.Status(ctx, name, o.run)
	if err != nil {
		return err
	}
	if o.json {
		return report.StatusJSON(d.Stdout, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(d.Stdout, none)
		return nil
	}
	return report.StatusTable(d.Stdout, rows, canColor(d, d.Stdout))
}
