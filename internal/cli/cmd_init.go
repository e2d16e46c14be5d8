package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/session"
)

// initOptions are the flags of `init`.
type initOptions struct {
	force bool
}

// AddFlags adds the flags of `init` to fs.
func (o *initOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.force, "force", false, "overwrite files that exist")
}

func newInitCmd(d Deps) *cobra.Command {
	var o initOptions
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Scaffold agentloop.yaml, prompts/ and AGENTS.md hints in the current folder",
		Long: `Create agentloop.yaml, the prompts/ folder and AGENTS.md hints in the current
folder, to edit before the first run. Files that exist are kept unless --force.` + exitStatus(
			exitSuccess,
			exitLine{ExitFailure, "error, or a file exists (overwrite it with --force)"},
			exitUsageLine),
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runInit(cmd.Context(), o, d) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runInit is `agentloop init`.
func runInit(_ context.Context, o initOptions, d Deps) error {
	wd, err := d.Getwd()
	if err != nil {
		return err
	}
	files, err := config.Init(wd, o.force)
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintf(d.Stdout, "created %s\n", session.RelPath(wd, f))
	}
	fmt.Fprintln(d.Stdout, "Next: edit agentloop.yaml (agent, gates, limits), then 'agentloop run --dry-run -v' to check the prompt.")
	return nil
}
