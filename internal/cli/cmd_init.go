package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/config"
)

// initOptions are the flags of `init`.
type initOptions struct {
	force bool
}

// AddFlags adds the flags of `init` to fs.
func (o *initOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.force, "force", false, "overwrite the files that exist with the scaffold's")
}

func newInitCmd(d Deps) *cobra.Command {
	var o initOptions
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Scaffold agentloop.yaml, prompts/ and AGENTS.md hints in the current folder",
		Long: `Create agentloop.yaml, the prompts/ folder and AGENTS.md hints in the current
folder, to edit before the first run. It adds only what is missing: a file that
exists is kept as it is (and named), so running it again is safe; --force
overwrites them.` + exitStatus(
			exitSuccess,
			exitLine{ExitFailure, "error"},
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
	written, kept, err := config.Init(wd, o.force)
	for _, f := range written {
		fmt.Fprintf(d.Stdout, "created %s\n", f)
	}
	if err != nil {
		return err
	}
	for _, f := range kept {
		fmt.Fprintf(d.Stdout, "kept %s (it exists; --force overwrites it)\n", f)
	}
	if len(written) == 0 {
		fmt.Fprintln(d.Stdout, "Nothing to add: the workspace has every file init creates.")
		return nil
	}
	fmt.Fprintln(d.Stdout, "Next: edit agentloop.yaml (agent, gates, limits), then 'agentloop run --dry-run -v' to check the prompt.")
	return nil
}
