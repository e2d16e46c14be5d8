package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
)

// feedbackOptions are the flags of `feedback`.
type feedbackOptions struct {
	app.FeedbackOptions
}

// AddFlags adds the flags of `feedback` to fs.
func (o *feedbackOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Format, "format", "auto", "output format of the gate (auto detects; see the list in --help of agentloop feedback)")
	fs.BoolVar(&o.JSON, "json", false, "print the judged result with its findings as JSON")
	fs.IntVar(&o.MaxLength, "max-length", 500, "cap on the feedback, in characters")
	fs.IntVar(&o.ExitCode, "exit-code", -1, "the gate's exit code, when known")
	fs.StringVar(&o.Name, "name", "", "the gate's name in the header")
}

func newFeedbackCmd(d Deps) *cobra.Command {
	var o feedbackOptions
	cmd := &cobra.Command{
		Use:   "feedback [--format F] [FILE|-]",
		Short: "Synthesize the feedback an agent gets from saved gate output",
		Long: `Judge a gate's saved output (a file, or - for standard input) the way a loop does,
and print the feedback the agent would get in its next prompt, or with --json the
judged result and its findings.

Formats: ` + strings.Join(app.FeedbackFormats(), ", ") + "." + exitStatus(
			exitSuccess,
			exitLine{ExitFailure, "error, or no test results found in the input when no --exit-code was given"},
			exitUsageLine),
		Example: `  go test -json ./... > out.jsonl; agentloop feedback out.jsonl
  npx eslint -f json . | agentloop feedback --format eslint-json -`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return runFeedback(cmd.Context(), o, d, args) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runFeedback is `agentloop feedback [FILE|-]`.
func runFeedback(_ context.Context, o feedbackOptions, d Deps, args []string) error {
	file := ""
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
	if err := app.Feedback(in, d.Stdout, o.FeedbackOptions); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
