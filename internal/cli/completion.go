package cli

import (
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/config"
)

// addCompletions gives the shell completion (`agentloop completion bash|zsh|fish`)
// what a person names on the command line: procedures, run names, agent presets
// and configured agents, and the values of the format flags. It is wired after
// every command is added, by the commands' names and their flags.
func addCompletions(root *cobra.Command, d Deps) {
	for _, cmd := range root.Commands() {
		switch cmd.Name() {
		case "run":
			cmd.ValidArgsFunction = firstArg(func(cmd *cobra.Command) []string { return procedureNames(cmd, d) })
		case "resume", "report", "status":
			cmd.ValidArgsFunction = firstArg(func(cmd *cobra.Command) []string { return runNames(cmd, d) })
		}
		agents := func(cmd *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
			return matching(agentNames(cmd, d), prefix), cobra.ShellCompDirectiveNoFileComp
		}
		for _, name := range []string{"agent", "reviewer"} {
			if cmd.Flags().Lookup(name) != nil {
				_ = cmd.RegisterFlagCompletionFunc(name, agents)
			}
		}
		if cmd.Flags().Lookup("run") != nil {
			_ = cmd.RegisterFlagCompletionFunc("run", func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
				if len(args) == 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return matching(runIDs(cmd, d, args[0]), prefix), cobra.ShellCompDirectiveNoFileComp
			})
		}
		if cmd.Flags().Lookup("log-format") != nil {
			_ = cmd.RegisterFlagCompletionFunc("log-format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
		}
		if cmd.Flags().Lookup("format") != nil {
			var formats []string
			switch cmd.Name() {
			case "report":
				formats = slices.Sorted(maps.Keys(reportFormats))
			case "feedback":
				formats = append([]string{"auto"}, app.FeedbackFormats()...)
			}
			if formats != nil {
				_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
			}
		}
	}
}

// firstArg completes a command's first argument from names, and nothing after it.
func firstArg(names func(cmd *cobra.Command) []string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return matching(names(cmd), prefix), cobra.ShellCompDirectiveNoFileComp
	}
}

func matching(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// completionConfig loads the configuration the command would use (its --config),
// nil when it does not load: completion stays quiet rather than show an error.
func completionConfig(cmd *cobra.Command, d Deps) *config.Config {
	file := ""
	if f := cmd.Flags().Lookup("config"); f != nil {
		file = f.Value.String()
	}
	cfg, err := loadConfig(d, file, config.Overrides{})
	if err != nil {
		return nil
	}
	return cfg
}

// procedureNames are the procedures `run` can start.
func procedureNames(cmd *cobra.Command, d Deps) []string {
	if cfg := completionConfig(cmd, d); cfg != nil {
		return cfg.Names()
	}
	return nil
}

// agentNames are the presets and the configured agents.
func agentNames(cmd *cobra.Command, d Deps) []string {
	names := app.AgentNames()
	if cfg := completionConfig(cmd, d); cfg != nil {
		names = append(names, slices.Collect(maps.Keys(cfg.Agents))...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// completionStateDir is the state folder the command would use (its --state-dir).
func completionStateDir(cmd *cobra.Command, d Deps) (string, error) {
	dir := ""
	if f := cmd.Flags().Lookup("state-dir"); f != nil {
		dir = f.Value.String()
	}
	return stateDir(d, dir)
}

// runIDs are the runs of the name in the state folder, newest first.
func runIDs(cmd *cobra.Command, d Deps, name string) []string {
	dir, err := completionStateDir(cmd, d)
	if err != nil {
		return nil
	}
	return app.RunIDs(dir, name)
}

// runNames are the runs in the state folder (its --state-dir).
func runNames(cmd *cobra.Command, d Deps) []string {
	dir, err := completionStateDir(cmd, d)
	if err != nil {
		return nil
	}
	return app.RunNames(dir)
}
