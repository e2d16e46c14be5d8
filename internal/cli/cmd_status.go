package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/session"
	"github.com/agentloop/agentloop/internal/state"
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
	if onTemporal, err := o.engine.temporal(d); err != nil {
		return err
	} else if onTemporal {
		if o.run != "" {
			return usageError("--run reads a run folder of the local state folder; a run on Temporal is shown by its name")
		}
		return statusTemporal(ctx, o, d, args)
	}
	store, err := openStore(d, o.stateDir)
	if err != nil {
		return err
	}
	if o.run != "" {
		return statusOfRun(d, o, store, args[0])
	}
	states, err := store.List()
	if err := skipCorrupt(d, err); err != nil {
		return fmt.Errorf("read runs in %s: %w", store.Root, err)
	}
	if len(args) == 1 {
		var one []*state.State
		for _, s := range states {
			if s.Name == args[0] {
				one = append(one, s)
			}
		}
		if len(one) == 0 {
			return fmt.Errorf("no run named %q in %s; 'agentloop status' lists them", args[0], store.Root)
		}
		states = one
	}
	for _, st := range states {
		session.AsItStands(store, st)
	}
	for _, st := range states {
		if st.Steer != "" {
			_ = store.LoadHistory(st) // its guidance hand-offs, acknowledged below the table
		}
	}
	rows := report.StatusRows(states, d.Now())
	for i := range rows {
		if q, err := store.Queued(rows[i].Name, rows[i].RunID, 0); err == nil {
			rows[i].Queued = len(q.Guidance)
		}
	}
	if o.json {
		return report.StatusJSON(d.Stdout, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(d.Stdout, "No runs in %s yet. Start one with 'agentloop run'.\n", store.Root)
		return nil
	}
	return report.StatusTable(d.Stdout, rows, canColor(d, d.Stdout))
}

// statusOfRun is `agentloop status NAME --run ID`: the run of that id as its
// last session left it (the current run of NAME as it stands).
func statusOfRun(d Deps, o statusOptions, store *state.Store, name string) error {
	st, err := store.Load(name)
	if _, gap := errors.AsType[*state.HistoryGapError](err); gap {
		err = nil
	}
	if err != nil || st.RunID != o.run {
		if st, err = loadEarlierRun(store, name, o.run); err != nil {
			return err
		}
	} else {
		session.AsItStands(store, st)
	}
	rows := report.StatusRows([]*state.State{st}, d.Now())
	if o.json {
		return report.StatusJSON(d.Stdout, rows)
	}
	return report.StatusTable(d.Stdout, rows, canColor(d, d.Stdout))
}
