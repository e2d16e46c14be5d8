package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
)

// decideOptions are the flags of `decide`.
type decideOptions struct {
	file string
}

// AddFlags adds the flags of `decide` to fs.
func (o *decideOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.file, "file", "f", "", "the iteration_check document (- or none: stdin)")
}

func newDecideCmd(d Deps) *cobra.Command {
	var o decideOptions
	cmd := &cobra.Command{
		Use:   "decide [-f FILE|-]",
		Short: "Iteration-control decision: an iteration_check YAML document in, a decision YAML document out",
		Long: `Read an iteration_check document (task_id, current_iteration, max_iterations,
test_result, review_result, optional history) and write the decision: proceed,
retry with synthesized feedback, or escalate with the attempts summary, the
pattern detected and one question. The loop's own decision engine decides, each
attempt of the document taken as one of its iterations; the test output is read
as a gate's (its format detected).` + exitStatus(
			exitLine{ExitOK, "the decision was written (whatever it decided)"},
			exitLine{ExitUsage, "usage error, or a document that cannot be read or is not a valid iteration_check"}),
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runDecide(cmd.Context(), o, d) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runDecide is `agentloop decide`.
func runDecide(_ context.Context, o decideOptions, d Deps) error {
	in, name, closeIn, err := openInput(d, o.file)
	if err != nil {
		return err
	}
	defer closeIn()
	if err := app.Decide(in, d.Stdout); err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %w", name, err)}
	}
	return nil
}
