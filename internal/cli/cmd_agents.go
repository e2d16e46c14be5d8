package cli

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/proc"
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, proc.ShellJoin(argv), p.PromptVia, p.Format, tested, installed)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(d.Stdout, "WARNING: "+w)
	}
	return configuredAgents(d, cfg)
}

// configuredAgents lists the agents the configuration defines.
func configuredAgents(d Deps, cfg *config.Config) error {
	if len(cfg.Agents) == 0 {
		return nil
	}
	fmt.Fprintf(d.Stdout, "\nConfigured agents (%s):\n", strings.Join(cfg.Files, ", "))
	tw := tabwriter.NewWriter(d.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tPRESET\tCOMMAND\tPROMPT\tOUTPUT\tINSTALLED")
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		p, err := plan.ResolveAgent(cfg, config.AgentRef{Name: name})
		if err != nil {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\n", name, err)
			continue
		}
		base := cmp.Or(cfg.Agents[name].Preset, "-")
		installed := "no"
		if path, ok := agent.Installed(p, d.LookPath); ok {
			installed = path
		}
		argv, _ := p.Command("PROMPT", "PROMPT_FILE")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, base, proc.ShellJoin(argv), p.PromptVia, p.Format, installed)
	}
	return tw.Flush()
}
