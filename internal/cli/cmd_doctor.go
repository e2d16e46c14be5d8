package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/sandbox"
)

// doctorOptions are the flags of `agentloop doctor`.
type doctorOptions struct {
	agent  string
	config string
}

func newDoctorCmd(d Deps) *cobra.Command {
	var o doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor [PROCEDURE]",
		Short: "Say how agentloop contains agents here, and what their sandbox allows",
		Long: `Say how agentloop contains the processes that agents and gates start on this
machine: in a cgroup of their own per run (Linux, where agentloop may create one;
AGENTLOOP_CGROUP=off turns it off), as orphans agentloop adopts as subreaper
(Linux otherwise), or by process group only (a process that calls setsid
escapes).

Then whether this machine can sandbox them (bubblewrap on Linux, sandbox-exec on
macOS) and, for the procedure's agent, fallbacks and reviewer (the default
procedure, or PROCEDURE; --agent for another agent) and its gates, what their
sandbox allows: what is writable, hidden and readable, and which hosts the
network reaches. An agent the procedure does not sandbox is shown as --sandbox
would run it.` + exitStatus(exitSuccess, exitError, exitUsageLine),
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return runDoctor(cmd.Context(), d, o, args) },
	}
	cmd.Flags().StringVar(&o.agent, "agent", "", "show this agent preset or configured agent instead of the procedure's")
	cmd.Flags().StringVar(&o.config, "config", "", "workspace configuration file (default ./agentloop.yaml)")
	return cmd
}

// runDoctor is `agentloop doctor`.
func runDoctor(ctx context.Context, d Deps, o doctorOptions, args []string) error {
	fmt.Fprintf(d.Stdout, "containment: %s\n", proc.GroupsFrom(ctx).Contains())
	if err := sandbox.Check(ctx); err != nil {
		fmt.Fprintf(d.Stdout, "sandbox: none: %v\n", err)
	} else {
		fmt.Fprintf(d.Stdout, "sandbox: %s, works\n", sandbox.Version(ctx))
	}
	lo := loopOptions{config: o.config, agent: o.agent}
	if o.agent != "" {
		lo.given = []givenFlag{{name: "agent", values: []string{o.agent}}}
	}
	name := ""
	if len(args) == 1 {
		name = args[0]
	}
	p, err := resolvePlan(d, lo, name)
	if err != nil {
		return err
	}
	show := func(role string, a agent.Preset) error {
		sb, how := p.AgentSandbox(a), "runs in it"
		if sb == nil {
			sb, how = p.SandboxFor(a), "with --sandbox"
		}
		pol, err := sb.Policy(ctx, p.WorkDir, agentEnv(d, a), a.Binary)
		if err != nil {
			return fmt.Errorf("%s %s: %w", role, a.Name, err)
		}
		fmt.Fprintf(d.Stdout, "%s %s (%s): %s\n", role, a.Name, how, pol)
		return nil
	}
	if err := show("agent", p.Agent); err != nil {
		return err
	}
	for _, f := range p.Fallback {
		if err := show("fallback agent", f); err != nil {
			return err
		}
	}
	if p.Reviewer != nil {
		if err := show("reviewer", *p.Reviewer); err != nil {
			return err
		}
	}
	if p.Proc.Sandbox.Gates && len(p.Gates) > 0 {
		pol, err := p.GateSandbox().Policy(ctx, p.WorkDir, nil, "")
		if err != nil {
			return fmt.Errorf("gates: %w", err)
		}
		fmt.Fprintf(d.Stdout, "gates (run in it): %s\n", pol)
	}
	return nil
}

// agentEnv is the environment agent a runs with: this process's, with its own.
func agentEnv(d Deps, a agent.Preset) []string {
	env := d.Environ()
	for k, v := range a.Env {
		env = append(env, k+"="+v)
	}
	return env
}
