package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/sandbox"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/internal/tasks"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitAborted     = 3
	ExitEscalated   = 4
	ExitInterrupted = 130
)

// exitLine is one line of a command's EXIT STATUS: a code and what it means
// for that command.
type exitLine struct {
	code    int
	meaning string
}

// The meanings of the exit codes, as docs/exit-codes.md states them; a command whose
// codes mean something narrower says so in its own lines.
var (
	exitSucceeded   = exitLine{ExitOK, "succeeded or completed"}
	exitSuccess     = exitLine{ExitOK, "success"}
	exitError       = exitLine{ExitFailure, "error"}
	exitUsageLine   = exitLine{ExitUsage, "usage or configuration error"}
	exitAbortedLine = exitLine{ExitAborted, "aborted (failure threshold or budget)"}
	exitEscalLine   = exitLine{ExitEscalated, "escalated (waiting for you)"}
	exitInterrupted = exitLine{ExitInterrupted, "interrupted"}

	// loopExits are the exit codes of a command that runs a loop.
	loopExits = []exitLine{exitSucceeded, exitError, exitUsageLine, exitAbortedLine, exitEscalLine, exitInterrupted}
)

// exitStatus is the EXIT STATUS section of a command's help.
func exitStatus(lines ...exitLine) string {
	var b strings.Builder
	b.WriteString("\n\nEXIT STATUS\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "  %-5d%s\n", l.code, l.meaning)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// ExitError carries an exit code; Err, when set, is printed.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// InterruptError is the cause of a context canceled by a signal.
type InterruptError struct{ Signal string }

func (e *InterruptError) Error() string {
	switch e.Signal {
	case "interrupt":
		return "interrupted by Ctrl-C (SIGINT)"
	case "terminated":
		return "interrupted by SIGTERM"
	}
	return "interrupted by " + e.Signal
}

// usageError is a mistake on the command line or in the configuration.
func usageError(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// ExitCode maps an error to the process exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	if ee, ok := errors.AsType[*ExitError](err); ok {
		return ee.Code
	}
	if _, ok := errors.AsType[*app.UsageError](err); ok {
		return ExitUsage
	}
	if _, ok := errors.AsType[*agent.SetupError](err); ok {
		return ExitUsage // an agent to install, a key or setting to fix
	}
	if _, ok := errors.AsType[*evidence.StartError](err); ok {
		return ExitUsage // a gate's command to fix, or what it runs to install
	}
	if _, ok := errors.AsType[*sandbox.SetupError](err); ok {
		return ExitUsage // a sandbox that cannot be set up for what it would run: its configuration to fix
	}
	if errors.Is(err, sandbox.ErrUnavailable) {
		return ExitUsage // --sandbox where no sandbox can be made: install one
	}
	if _, ok := errors.AsType[*InterruptError](err); ok || errors.Is(err, context.Canceled) {
		return ExitInterrupted
	}
	return ExitFailure
}

// statusExit maps the status a run ended with to its exit code.
func statusExit(s state.Status) int {
	switch s {
	case state.StatusSucceeded, state.StatusCompleted:
		return ExitOK
	case state.StatusAborted:
		return ExitAborted
	case state.StatusEscalated:
		return ExitEscalated
	case state.StatusInterrupted:
		return ExitInterrupted
	}
	return ExitFailure
}

// usageArgs wraps a cobra argument check so that its failure is a usage error.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w\nsee '%s --help'", err, cmd.CommandPath())}
		}
		return nil
	}
}

// flagError makes a bad flag a usage error.
func flagError(cmd *cobra.Command, err error) error {
	hint := ""
	if name, ok := strings.CutPrefix(err.Error(), "unknown flag: --"); ok {
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if s := suggest.Closest(name, names); s != "" {
			hint = fmt.Sprintf("; did you mean --%s?", s)
		}
	}
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w%s\nsee '%s --help'", err, hint, cmd.CommandPath())}
}

// graphExit is the exit code of a finished graph from its tasks whose work
// is not merged back: 0 when there is none; 4 when one waits for you
// (escalated, its merge refused or conflicting, or blocked behind such a
// one); else 3 (failed, skipped by the budget, not started), or 1 for a task
// done whose merge failed.
func graphExit(r app.GraphResult) int {
	code := ExitOK
	for _, u := range r.Unfinished {
		switch {
		case u.State == tasks.StateEscalated, u.State == tasks.StateBlocked:
			return ExitEscalated
		case u.State.Done():
			code = max(code, ExitFailure)
		default:
			code = max(code, ExitAborted)
		}
	}
	if r.BudgetExhausted {
		code = max(code, ExitAborted)
	}
	return code
}
