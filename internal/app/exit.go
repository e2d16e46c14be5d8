package app

import (
	"errors"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/sandbox"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/internal/tasks"
)

// The exit codes of the agentloop command, as docs/exit-codes.md states them.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitAborted     = 3
	ExitEscalated   = 4
	ExitInterrupted = 130
)

// IsSetup reports whether err is one the person fixes before running again
// (exit 2): a usage error, an agent to install or a key to set, a gate's
// command to fix, a sandbox that cannot be set up or made at all.
func IsSetup(err error) bool {
	if _, ok := errors.AsType[*UsageError](err); ok {
		return true
	}
	if _, ok := errors.AsType[*agent.SetupError](err); ok {
		return true // an agent to install, a key or setting to fix
	}
	if _, ok := errors.AsType[*evidence.StartError](err); ok {
		return true // a gate's command to fix, or what it runs to install
	}
	if _, ok := errors.AsType[*sandbox.SetupError](err); ok {
		return true // a sandbox that cannot be set up for what it would run: its configuration to fix
	}
	return errors.Is(err, sandbox.ErrUnavailable) // --sandbox where no sandbox can be made: install one
}

// ExitStatus is the exit code of what a command followed: its graph's
// (interrupted, else [GraphExit]), none when the run ended as the person
// chose, a usage error when a worker refused the commands it names (a
// configuration to fix), else its status's ([StatusExit]).
func ExitStatus(out Outcome) int {
	switch {
	case out.Graph != nil && out.Graph.Interrupted:
		return ExitInterrupted
	case out.Graph != nil:
		return GraphExit(*out.Graph)
	case out.Chosen && out.Status == state.StatusAborted:
		return ExitOK // the run ends as you chose, which is no failure of the command
	case out.Refused:
		return ExitUsage // a worker's configuration to fix: the run's reason says how
	}
	return StatusExit(out.Status)
}

// StatusExit maps the status a run ended with to its exit code.
func StatusExit(s state.Status) int {
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

// GraphExit is the exit code of a finished graph from its tasks whose work
// is not merged back: 0 when there is none; 4 when one waits for you
// (escalated, its merge refused or conflicting, or blocked behind such a
// one); else 3 (failed, skipped by the budget, not started), or 1 for a task
// done whose merge failed.
func GraphExit(r GraphResult) int {
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

// DidYouMean is the name of names closest to a mistyped one, for a "did you
// mean" hint; "" when none is close.
func DidYouMean(name string, names []string) string { return suggest.Closest(name, names) }
