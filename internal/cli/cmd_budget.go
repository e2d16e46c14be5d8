package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/config"
)

// budgetOptions are the flags of `budget approve`.
type budgetOptions struct {
	config string
	engine engineOptions
}

// AddFlags adds the flags of `budget approve` to fs.
func (o *budgetOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.config, "config", "", "workspace configuration file (default ./agentloop.yaml)")
	o.engine.AddFlags(fs)
}

func newBudgetCmd(d Deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "budget",
		Short: "Answer the caps every loop of yours shares (approve a soft limit)",
		Args:  usageArgs(cobra.NoArgs),
	}
	var o budgetOptions
	approve := &cobra.Command{
		Use:   "approve [CAP...]",
		Short: "Let the loops a soft limit parked go on, for the rest of its period",
		Long: `Approve the soft limit of each cap named (every cap with a soft limit when
none is named) for the rest of its period (today, this week, this month): the
loops it parked go on at their next look at the ledger, up to the cap's hard
limit. 'agentloop spend' shows the caps and where each stands. With --engine
temporal the approval goes to the ledger the runs on the Temporal server share,
and wakes the runs it parked there.` + exitStatus(exitSuccess, exitError, exitUsageLine),
		Example: `  agentloop budget approve day`,
		RunE:    func(cmd *cobra.Command, args []string) error { return runBudgetApprove(cmd.Context(), o, args, d) },
	}
	o.AddFlags(approve.Flags())
	cmd.AddCommand(approve)
	return cmd
}

// runBudgetApprove is `agentloop budget approve`.
func runBudgetApprove(ctx context.Context, o budgetOptions, names []string, d Deps) error {
	cfg, err := loadConfig(d, o.config, config.Overrides{})
	if err != nil {
		return err
	}
	var known []string
	for _, c := range cfg.Budgets.Caps {
		if c.SoftCostUSD > 0 || c.SoftTokens > 0 {
			known = append(known, c.Name)
		}
	}
	if len(known) == 0 {
		return usageError("no cap has a soft limit to approve: give one soft_cost_usd or soft_tokens under budgets.caps in your configuration")
	}
	for _, n := range names {
		c, ok := cfg.Budgets.Cap(n)
		if !ok || (c.SoftCostUSD == 0 && c.SoftTokens == 0) {
			hint := ""
			if near := app.DidYouMean(n, known); near != "" {
				hint = fmt.Sprintf("; did you mean %q?", near)
			}
			return usageError("no cap %q with a soft limit%s (caps with one: %s)", n, hint, strings.Join(known, ", "))
		}
	}
	if len(names) == 0 {
		names = known
	}
	o.engine.config = o.config
	eng, err := chooseEngine(ctx, d, o.engine, engineUse{})
	if err != nil {
		return err
	}
	defer eng.Close()
	return eng.Approve(ctx, cfg.Budgets, names)
}
