package cli

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
)

// inboxOptions are the flags of `inbox` (and of `status --waiting`).
type inboxOptions struct {
	json     bool
	stateDir string
	engine   engineOptions
}

// AddFlags adds the flags of `inbox` to fs.
func (o *inboxOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.json, "json", false, "print JSON")
	fs.StringVar(&o.stateDir, "state-dir", "", "state folder (default .agentloop, or state_dir from the configuration)")
	o.engine.AddFlags(fs)
	o.engine.AddConfigFlag(fs)
}

func newInboxCmd(d Deps) *cobra.Command {
	var o inboxOptions
	cmd := &cobra.Command{
		Use:   "inbox",
		Short: "List what waits for you: each run or graph task's question and the command of each answer",
		Long: `List every run and graph task of this repository that waits for a person (with
--engine temporal: of the Temporal namespace), the one that has waited longest first:
an escalation, a run a budget stopped, an agent that cannot work until its setup is
fixed, a task whose branch could not be merged back. Each says what it asks, the
evidence in short, and the exact command of each answer. 'agentloop status --waiting'
lists the same.` + exitStatus(exitSuccess, exitLine{ExitFailure, "error: a state file or a server that cannot be read"}, exitUsageLine),
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runInbox(cmd.Context(), o, d) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runInbox is `agentloop inbox`.
func runInbox(ctx context.Context, o inboxOptions, d Deps) error {
	eng, err := chooseEngine(ctx, d, o.engine, engineUse{stateDir: o.stateDir})
	if err != nil {
		return err
	}
	defer eng.Close()
	items, err := eng.Inbox(ctx)
	if err != nil {
		return err
	}
	if o.json {
		return app.WriteInboxJSON(d.Stdout, items)
	}
	wd, _ := d.Getwd()
	return app.WriteInbox(d.Stdout, items, d.Now(), wd)
}
