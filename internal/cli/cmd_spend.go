package cli

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/config"
)

// spendOptions are the flags of `spend`.
type spendOptions struct {
	config string
	format string
	engine engineOptions
}

// AddFlags adds the flags of `spend` to fs.
func (o *spendOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.config, "config", "", "workspace configuration file (default ./agentloop.yaml)")
	fs.StringVar(&o.format, "format", "text", "text, json or csv")
	o.engine.AddFlags(fs)
}

func newSpendCmd(d Deps) *cobra.Command {
	var o spendOptions
	cmd := &cobra.Command{
		Use:   "spend",
		Short: "What every loop of yours spent: today, this week, this month, and each cap",
		Long: `Show the spend ledger every loop of yours shares (local runs and the tasks of
task graphs): what was spent today, this week and this month by provider,
account and model and by run, known and estimated (an agent that reports no
cost is charged what was reserved for it), the reservations of the iterations
running now, the accounts waiting for their usage limit to reset, and where
each cap of budgets: in your configuration stands.

--format csv has a row per period, provider, account and model (every day
the ledger holds, this week, this month), then a row per task graph in each
period (today, this week, this month) with its graph column set and the key
columns empty: a graph's spend is in the key rows too, so sum the rows
without a graph for a total.

Every local run keeps its spend in the ledger, with caps or without, unless
your configuration ($XDG_CONFIG_HOME/agentloop/config.yaml) says
budgets: {ledger: off} (a run given --daily-cap, --weekly-cap or --monthly-cap
keeps it all the same).

With --engine temporal it is the ledger the runs on the Temporal server share
(a workflow the workers reserve against; its periods are UTC days, weeks and
months), judged under the caps of your configuration; runs started from a
configuration without a budgets: section keep nothing there.` + exitStatus(exitSuccess, exitError, exitUsageLine),
		Example: `  agentloop spend
  agentloop spend --format json | jq '.caps[] | {name, state, left_usd}'`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runSpend(cmd.Context(), o, d) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runSpend is `agentloop spend`.
func runSpend(ctx context.Context, o spendOptions, d Deps) error {
	if o.format != "text" && o.format != "json" && o.format != "csv" {
		return usageError("--format %q: expected text, json or csv", o.format)
	}
	cfg, err := loadConfig(d, o.config, config.Overrides{})
	if err != nil {
		return err
	}
	o.engine.config = o.config
	eng, err := chooseEngine(ctx, d, o.engine, engineUse{})
	if err != nil {
		return err
	}
	defer eng.Close()
	bk, err := eng.Spend(ctx, cfg.Budgets)
	if err != nil {
		return err
	}
	return app.WriteSpend(d.Stdout, o.format, bk)
}
