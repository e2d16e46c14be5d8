package app

import (
	"fmt"
	"io"

	"github.com/agentloop/agentloop/internal/decide"
)

// Decide reads an iteration_check document from r and writes the decision
// document the default policy makes of it to w (`agentloop decide`).
func Decide(r io.Reader, w io.Writer) error {
	data, err := io.ReadAll(io.LimitReader(r, decide.MaxCheckBytes+1))
	if err != nil {
		return fmt.Errorf("read iteration_check: %w", err)
	}
	c, err := decide.ParseCheck(data)
	if err != nil {
		return fmt.Errorf("%w (see `agentloop decide --help` for the document's shape)", err)
	}
	out, err := decide.New(decide.DefaultPolicy()).DecideCheck(c).YAML()
	if err != nil {
		return fmt.Errorf("write decision: %w", err)
	}
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("write decision: %w", err)
	}
	return nil
}
