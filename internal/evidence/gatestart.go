package evidence

import (
	"errors"
	"fmt"
	"strings"
)

// StartError is a gate whose command cannot start: a configuration error, found
// before any agent runs (by a preflight or at the baseline), or a change of the
// environment found mid-run (After > 0: the iteration after which it happened).
type StartError struct {
	Gate, Command, Reason string
	After                 int
}

func (e *StartError) Error() string {
	if e.After > 0 {
		return fmt.Sprintf("gate %s (%s) could not start after iteration %d although it ran at the baseline: %s. "+
			"This is the environment, not the agent's code failing (unless the agent removed what the command runs); fix it, then resume",
			e.Gate, e.Command, e.After, e.Reason)
	}
	return fmt.Sprintf("gate %s cannot start: %s: %s. Fix the gate's command (--gate, or gates: in agentloop.yaml) or install what it runs", e.Gate, e.Command, e.Reason)
}

// StartErrors returns a *StartError for each gate result that did not start
// (joined), or nil. after is the iteration they followed, 0 for the baseline.
func StartErrors(results []GateResult, after int) error {
	var errs []error
	for _, r := range results {
		if r.NotStarted {
			errs = append(errs, &StartError{Gate: r.Name, Command: r.Command, Reason: strings.TrimPrefix(r.InfraReason, "cannot start: "), After: after})
		}
	}
	return errors.Join(errs...)
}
