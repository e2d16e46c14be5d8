package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
)

// Exit codes ([app.ExitOK] and the others).
const (
	ExitOK          = app.ExitOK
	ExitFailure     = app.ExitFailure
	ExitUsage       = app.ExitUsage
	ExitAborted     = app.ExitAborted
	ExitEscalated   = app.ExitEscalated
	ExitInterrupted = app.ExitInterrupted
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
	if app.IsSetup(err) {
		return ExitUsage // a usage error, an agent, gate or sandbox to set up
	}
	if _, ok := errors.AsType[*InterruptError](err); ok || errors.Is(err, context.Canceled) {
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
		if s := app.DidYouMean(name, names); s != "" {
			hint = fmt.Sprintf("; did you mean --%s?", s)
		}
	}
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w%s\nsee '%s --help'", err, hint, cmd.CommandPath())}
}
