package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/config"
)

func newAgentsCmd(d Deps) *cobra.Command {
	var config string
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List the agent presets and whether each CLI is installed",
		Long: `List the built-in agent presets: the command each runs, how it is given the prompt,
the output format it is read in, and where its CLI is installed ("no" when it is not
on PATH), the CLI version each preset is tested with and, for an installed CLI, its
version, with a warning when its major version differs. Then the agents your
configuration defines (under agents:), each with the preset it builds on, the
command it runs and whether that is installed.` + exitStatus(exitSuccess, exitError,
			exitLine{ExitUsage, "usage or configuration error"}),
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runAgents(cmd.Context(), d, config) },
	}
	cmd.Flags().StringVar(&config, "config", "", "configuration file (default: agentloop.yaml here)")
	return cmd
}

// runAgents is `agentloop agents`.
func runAgents(ctx context.Context, d Deps, configFile string) error {
	cfg, err := loadConfig(d, configFile, config.Overrides{})
	if err != nil {
		return err
	}
	return app.Agents(ctx, d.Stdout, cfg, d.LookPath)
}
