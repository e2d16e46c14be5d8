package cli

import (
	"fmt"
	"os/exec"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/session"
)

func newAgentsCmd(d Deps) *cobra.Command {
	return &cobra.Command{
		Use:   "agents",
		Short: "List the agent presets and whether each CLI is installed",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(d.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "PRESET\tCOMMAND\tPROMPT\tOUTPUT\tINSTALLED")
			for _, p := range agent.Presets() {
				installed := "no"
				if path, ok := agent.Installed(p, exec.LookPath); ok {
					installed = path
				} else if p.Binary == "" {
					installed = "-"
				}
				argv, _ := p.Command("PROMPT", "PROMPT_FILE")
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Name, plan.ShellJoin(argv), p.PromptVia, p.Format, installed)
			}
			return tw.Flush()
		},
	}
}

func newListCmd(d Deps) *cobra.Command {
	var configFile string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the procedures (built-in and configured)",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(d, configFile, config.Overrides{})
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
		},
	}
	cmd.Flags().StringVar(&configFile, "config", "", "workspace configuration file (default ./agentloop.yaml)")
	return cmd
}

func newInitCmd(d Deps) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Scaffold agentloop.yaml, prompts/ and AGENTS.md hints in the current folder",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			wd, err := d.Getwd()
			if err != nil {
				return err
			}
			files, err := config.Init(wd, force)
			if err != nil {
				return &ExitError{Code: ExitFailure, Err: err}
			}
			for _, f := range files {
				fmt.Fprintf(d.Stdout, "created %s\n", session.RelPath(wd, f))
			}
			fmt.Fprintln(d.Stdout, "Next: edit agentloop.yaml (agent, gates, limits), then 'agentloop run --dry-run -v' to check the prompt.")
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite files that exist")
	return cmd
}

func newFeedbackCmd(d Deps) *cobra.Command {
	var o gate.FeedbackOptions
	cmd := &cobra.Command{
		Use:   "feedback [--format F] [FILE|-]",
		Short: "Synthesize the feedback an agent gets from saved gate output",
		Example: `  go test -json ./... > out.jsonl; agentloop feedback out.jsonl
  npx eslint -f json . | agentloop feedback --format eslint-json -`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := "-"
			if len(args) == 1 {
				file = args[0]
			}
			in, name, closeIn, err := openInput(d, file)
			if err != nil {
				return err
			}
			defer closeIn()
			if o.Name == "" {
				o.Name = "gate"
			}
			if o.WorkDir == "" {
				o.WorkDir, _ = d.Getwd()
			}
			if err := gate.FeedbackCommand(in, d.Stdout, o); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Format, "format", "auto", "output format of the gate (auto detects; see the list in --help of agentloop feedback)")
	fl.BoolVar(&o.JSON, "json", false, "print the judged result with its findings as JSON")
	fl.IntVar(&o.MaxLength, "max-length", 500, "cap on the feedback, in characters")
	fl.IntVar(&o.ExitCode, "exit-code", -1, "the gate's exit code, when known")
	fl.StringVar(&o.Name, "name", "", "the gate's name in the header")
	return cmd
}
