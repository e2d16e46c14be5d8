package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/plan"
)

func newAgentsCmd(d Deps) *cobra.Command {
	return &cobra.Command{
		Use:   "agents",
		Short: "List the agent presets and whether each CLI is installed",
		Long: `List the built-in agent presets: the command each runs, how it is given the prompt,
the output format it is read in, and where its CLI is installed ("no" when it is not
on PATH), the CLI version each preset is tested with and, for an installed CLI, its
version, with a warning when its major version differs.` + exitStatus(exitSuccess, exitError, exitUsageLine),
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runAgents(cmd.Context(), d) },
	}
}

// runAgents is `agentloop agents`.
func runAgents(ctx context.Context, d Deps) error {
	tw := tabwriter.NewWriter(d.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PRESET\tCOMMAND\tPROMPT\tOUTPUT\tTESTED\tINSTALLED")
	var warnings []string
	for _, p := range agent.Presets() {
		installed := "no"
		if path, ok := agent.Installed(p, d.LookPath); ok {
			installed = path
			if v, err := agent.InstalledVersion(ctx, path); err == nil {
				installed += " (" + v + ")"
				if w := agent.VersionWarning(p, v); w != "" {
					warnings = append(warnings, w)
				}
			}
		} else if p.Binary == "" {
			installed = "-"
		}
		tested := p.Tested
		if tested == "" {
			tested = "-"
		}
		argv, _ := p.Command("PROMPT", "PROMPT_FILE")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, plan.ShellJoin(argv), p.PromptVia, p.Format, tested, installed)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(d.Stdout, "WARNING: "+w)
	}
	return nil
}
