package app

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/shellword"
)

// Agents writes to w the agent presets (`agentloop agents`): the command each
// runs, how it is given the prompt, its output format, the CLI version it is
// tested with and where lookPath finds it installed, with a warning for an
// installed major version that differs; then the agents cfg defines.
func Agents(ctx context.Context, w io.Writer, cfg *config.Config, lookPath func(string) (string, error)) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PRESET\tCOMMAND\tPROMPT\tOUTPUT\tTESTED\tINSTALLED")
	var warnings []string
	for _, p := range agent.Presets() {
		installed := "no"
		if path, ok := agent.Installed(p, lookPath); ok {
			installed = path
			if v, err := agent.InstalledVersion(ctx, path); err == nil {
				installed += " (" + v + ")"
				if warning := agent.VersionWarning(p, v); warning != "" {
					warnings = append(warnings, warning)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, shellword.Join(argv), p.PromptVia, p.Format, tested, installed)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, warning := range warnings {
		fmt.Fprintln(w, "WARNING: "+warning)
	}
	return configuredAgents(w, cfg, lookPath)
}

// configuredAgents lists the agents the configuration defines.
func configuredAgents(w io.Writer, cfg *config.Config, lookPath func(string) (string, error)) error {
	if len(cfg.Agents) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nConfigured agents (%s):\n", strings.Join(cfg.Files, ", "))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tPRESET\tCOMMAND\tPROMPT\tOUTPUT\tINSTALLED")
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		p, err := plan.ResolveAgent(cfg, config.AgentRef{Name: name})
		if err != nil {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\n", name, err)
			continue
		}
		base := cmp.Or(cfg.Agents[name].Preset, "-")
		installed := "no"
		if path, ok := agent.Installed(p, lookPath); ok {
			installed = path
		}
		argv, _ := p.Command("PROMPT", "PROMPT_FILE")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, base, shellword.Join(argv), p.PromptVia, p.Format, installed)
	}
	return tw.Flush()
}

// AgentNames are the names of the agent presets.
func AgentNames() []string { return agent.Names() }
