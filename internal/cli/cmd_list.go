package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/config"
)

// listOptions are the flags of `list`.
type listOptions struct {
	config string
}

// AddFlags adds the flags of `list` to fs.
func (o *listOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.config, "config", "", "workspace configuration file (default ./agentloop.yaml)")
}

func newListCmd(d Deps) *cobra.Command {
	var o listOptions
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the procedures (built-in and configured)",
		Long: `List the procedures a run can name: the built-in ones and those of the
configuration, with the default marked.` + exitStatus(exitSuccess, exitError, exitUsageLine),
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runList(cmd.Context(), o, d) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runList is `agentloop list`.
func runList(_ context.Context, o listOptions, d Deps) error {
	cfg, err := loadConfig(d, o.config, config.Overrides{})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(d.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROCEDURE\tFROM\tDESCRIPTION")
	for _, name := range cfg.Names() {
		p, err := cfg.Procedure(name)
		if err != nil {
			return err
		}
		from := "config"
		if p.Builtin {
			from = "built-in"
		}
		mark := ""
		if name == cfg.Default {
			mark = " (default)"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\n", name, mark, from, p.Description)
	}
	return tw.Flush()
}
