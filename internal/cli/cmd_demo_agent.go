package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/app"
)

func newDemoAgentCmd(d Deps) *cobra.Command {
	return &cobra.Command{
		Use:    "demo-agent",
		Short:  "The demo's scripted agent (reads the prompt on stdin)",
		Long:   "The demo's scripted agent: it reads the prompt on standard input and fixes one failure." + exitStatus(exitSuccess, exitError, exitUsageLine),
		Hidden: true,
		Args:   usageArgs(cobra.NoArgs),
		RunE:   func(cmd *cobra.Command, _ []string) error { return runDemoAgent(cmd.Context(), d) },
	}
}

// runDemoAgent is `agentloop demo-agent`.
func runDemoAgent(_ context.Context, d Deps) error {
	prompt, err := io.ReadAll(io.LimitReader(d.Stdin, 16<<20))
	if err != nil {
		return err
	}
	wd, err := d.Getwd()
	if err != nil {
		return err
	}
	return app.DemoAgent(string(prompt), wd, d.Stdout)
}
