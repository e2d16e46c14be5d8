package app

import (
	"context"
	"io"
	"slices"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/sandbox"
)

// Helper runs what this program is when it starts itself as a helper, its
// part inside a sandbox or another agentloop process's watchdog, and returns
// its exit code; ok is false when args name neither.
func Helper(args []string, stdin io.Reader, stderr io.Writer) (code int, ok bool) {
	switch {
	case len(args) > 0 && args[0] == sandbox.InsideCommand:
		// agentloop's part inside a sandbox: nothing of the command line.
		return sandbox.Inside(args[1:], stderr), true
	case len(args) > 0 && args[0] == proc.WatchdogCommand:
		// The watchdog of another agentloop process: what it leaves when it dies.
		return proc.Watchdog(args[1:], stdin), true
	}
	return 0, false
}

// AdoptChildren makes this process the keeper of what its agents and gates
// start: orphans (a tool run with setsid that outlives its parent) are
// reparented to it, not to init, so the sweep still finds them; each runs in
// a process group (and a cgroup, unless noCgroup) of the groups it returns,
// which the returned context carries, watched by watchdog (this program)
// should this process die. KillAll on them ends every one.
func AdoptChildren(ctx context.Context, noCgroup bool, watchdog string) (context.Context, *proc.Groups) {
	proc.BecomeSubreaper()
	children := &proc.Groups{NoCgroup: noCgroup, Watchdog: watchdog}
	return proc.WithGroups(ctx, children), children
}

// EndLeftovers ends what an agentloop process killed on this machine left
// running (its agents and gates, in its cgroups or carrying its marker) and
// returns how many processes it ended.
func EndLeftovers() int { return proc.EndLeftovers() }

// StartDetached starts argv in wd, in a session of its own with env, its
// output appended to logPath: it goes on after this process ends.
func StartDetached(argv []string, wd string, env []string, logPath string) (*proc.Detached, error) {
	return proc.Detach(argv, wd, env, logPath)
}

// HostOptions are what of this process the agent preflight reads.
type HostOptions struct {
	LookPath func(file string) (string, error)
	Getenv   func(string) string
	Environ  func() []string
	// Root says this process runs as root.
	Root bool
}

// NewHost is what the agent preflight reads of this machine: its PATH,
// environment and sandbox.
func NewHost(ctx context.Context, o HostOptions) agent.Host {
	return agent.Host{LookPath: o.LookPath, Getenv: o.Getenv, Root: o.Root,
		Sandbox: func() error { return sandbox.Check(ctx) },
		TrySandbox: func(sb agent.SandboxTrier, dir string, a agent.Preset) error {
			return sb.Try(ctx, dir, agentEnv(o.Environ(), a), a.Binary)
		}}
}

// agentEnv is the environment agent a runs with: this process's, with its own.
func agentEnv(environ []string, a agent.Preset) []string {
	env := slices.Clone(environ)
	for k, v := range a.Env {
		env = append(env, k+"="+v)
	}
	return env
}
