package agent

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// Requirement is a setting a CLI cannot start without, checked by [Preflight]
// before a run spends anything.
type Requirement struct {
	AsRoot  bool     // applies only when agentloop runs as root
	WithArg string   // applies only when the arguments include this one
	AnyEnv  []string // one of these must be set, in the environment or the agent's env
	Value   string   // and set to this value, when the CLI accepts only it ("" : any value)
	Fix     string   // what to set, for people
}

// Host is what [Preflight] reads of the machine.
type Host struct {
	LookPath func(string) (string, error) // exec.LookPath in production
	Getenv   func(string) string
	Root     bool // agentloop runs as root
	// Sandbox checks that a sandbox can be made here (sandbox.Check); nil
	// skips the check.
	Sandbox func() error
	// TrySandbox makes the sandbox sb that the agent a would run in, in dir
	// with its environment, once, and runs nothing in it ([SandboxTrier]);
	// nil skips it.
	TrySandbox func(sb SandboxTrier, dir string, a Preset) error
}

// SandboxTrier makes a sandbox and runs nothing in it (sandbox.Sandbox): Try
// sets up what program, run in dir with env (nil: this process's), would
// get, and fails where that sandbox cannot be set up.
type SandboxTrier interface {
	Try(ctx context.Context, dir string, env []string, program string) error
}

// TrySandbox makes, once, the sandbox sb that the agent p, in its role,
// would run in, in dir ([Host.TrySandbox]): a sandbox that cannot be set up
// is found before anything runs, named with the agent. nil when it can, or
// when h does not try or sb is nil.
func TrySandbox(h Host, role string, p Preset, sb SandboxTrier, dir string) error {
	if h.TrySandbox == nil || sb == nil {
		return nil
	}
	if err := h.TrySandbox(sb, dir, p); err != nil {
		return fmt.Errorf("--sandbox: %s %s: %w", role, cmp.Or(p.Name, p.Binary), err)
	}
	return nil
}

// SetupError is an agent that cannot work until a person installs, sets or
// fixes something: not installed, refused to start, or its authentication or
// configuration rejected. Neither a retry nor another iteration can help, so the
// run stops at once (a usage or configuration error).
type SetupError struct {
	Role    string // "agent", "fallback agent", "reviewer"
	Agent   string // the preset or configured name
	Outcome evidence.AgentOutcome
	Message string // the CLI's own words, or what is missing
	Fix     string // what to set or install
}

func (e *SetupError) Error() string {
	if e.Fix == "" {
		return e.Headline()
	}
	return e.Headline() + "\nto fix: " + e.Fix
}

// Headline is the error on one line, without the fix.
func (e *SetupError) Headline() string {
	s := fmt.Sprintf("%s %s: %s", cmp.Or(e.Role, "agent"), e.Agent, e.Outcome.Text())
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// NewSetupError is the stop for a finished run whose outcome is fatal, or nil.
func NewSetupError(role string, res evidence.AgentResult) *SetupError {
	if !res.Outcome.Fatal() {
		return nil
	}
	return &SetupError{Role: role, Agent: res.Agent, Outcome: res.Outcome, Message: res.Reason, Fix: res.Fix}
}

// Preflight checks, before anything runs, that the preset's program is found and
// that the settings it is known to need are there. It returns a *SetupError, or
// nil when the agent can start as far as can be told without running it.
func Preflight(h Host, role string, p Preset) error {
	name := cmp.Or(p.Name, p.Binary)
	if h.LookPath != nil {
		if _, err := h.LookPath(p.Binary); err != nil {
			return &SetupError{Role: role, Agent: name, Outcome: evidence.OutcomeNotInstalled,
				Message: fmt.Sprintf("%s is not found on PATH", p.Binary), Fix: InstallHint(p)}
		}
	}
	for _, r := range p.Requires {
		if r.AsRoot && !h.Root || r.WithArg != "" && !slices.Contains(p.Args, r.WithArg) {
			continue
		}
		var found []string // the values set, where they do not do
		ok := slices.ContainsFunc(r.AnyEnv, func(k string) bool {
			v := p.Env[k]
			if v == "" && h.Getenv != nil {
				v = h.Getenv(k)
			}
			if v != "" && r.Value != "" && v != r.Value {
				found = append(found, fmt.Sprintf("%s=%q", k, v))
				return false
			}
			return v != ""
		})
		if ok {
			continue
		}
		want := strings.Join(r.AnyEnv, " or ") + " set"
		if r.Value != "" {
			want = strings.Join(r.AnyEnv, "="+r.Value+" or ") + "=" + r.Value
		}
		msg := fmt.Sprintf("%s needs %s", p.Binary, want)
		if len(found) > 0 {
			msg += fmt.Sprintf(" (%s does not do: it accepts only %s)", strings.Join(found, ", "), r.Value)
		}
		return &SetupError{Role: role, Agent: name, Outcome: evidence.OutcomeRefused, Message: msg, Fix: r.Fix}
	}
	return nil
}
