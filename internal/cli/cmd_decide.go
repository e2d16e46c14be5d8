package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/decide"
)

func newDecideCmd(d Deps) *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "decide [-f FILE|-]",
		Short: "Iteration-control decision: an iteration_check YAML document in, a decision YAML document out",
		Long: `Read an iteration_check document (task_id, current_iteration, max_iterations,
test_result, review_result, optional history) and write the decision: proceed,
retry with synthesized feedback, or escalate with the attempts summary, the
pattern detected and one question.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, name, closeIn, err := openInput(d, file)
			if err != nil {
				return err
			}
			defer closeIn()
			if err := runDecide(in, d.Stdout); err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %w", name, err)}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "-", "the iteration_check document (- for stdin)")
	return cmd
}

// runDecide reads an iteration_check document from r and writes the decision
// document to w.
func runDecide(r io.Reader, w io.Writer) error {
	data, err := io.ReadAll(io.LimitReader(r, decide.MaxCheckBytes+1))
	if err != nil {
		return fmt.Errorf("read iteration_check: %w", err)
	}
	c, err := decide.ParseCheck(data)
	if err != nil {
		return fmt.Errorf("%w (see `agentloop decide --help` for the document's shape)", err)
	}
	out, err := decide.Evaluate(c, decide.DefaultPolicy()).YAML()
	if err != nil {
		return fmt.Errorf("write decision: %w", err)
	}
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("write decision: %w", err)
	}
	return nil
}
