package app

import (
	"context"
	"fmt"
	"io"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/sandbox"
)

// Doctor writes to w how agentloop contains the processes agents and gates
// start here, whether this machine can sandbox them and, for the agents and
// gates of the procedure o resolves ([ResolvePlan]), what their sandbox allows
// (`agentloop doctor`); environ is this process's environment. With open,
// it also says which credential run --issue and serve would act with on
// the forge, opened with open.
func Doctor(ctx context.Context, w io.Writer, environ []string, o PlanOptions, open OpenForge) error {
	fmt.Fprintf(w, "containment: %s\n", proc.GroupsFrom(ctx).Contains())
	sbErr := sandbox.Check(ctx)
	if sbErr != nil {
		fmt.Fprintf(w, "sandbox: none: %v\n", sbErr)
	} else {
		fmt.Fprintf(w, "sandbox: %s, works\n", sandbox.Version(ctx))
	}
	p, err := ResolvePlan(o)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "keep awake: %s\n", keepAwake(p.KeepAwake, proc.KeepAwakeCommand()))
	doctorForge(ctx, w, p, open)
	show := func(role string, a agent.Preset) error {
		sb, how := p.AgentSandbox(a), "runs in it"
		if sb == nil {
			sb, how = p.SandboxFor(a), "with --sandbox"
		}
		if sbErr != nil { // no policy to tell: nothing here would apply it
			fmt.Fprintf(w, "%s %s (%s): no sandbox here, a run that asks for one refuses to start\n", role, a.Name, how)
			return nil
		}
		pol, err := sb.Policy(ctx, p.WorkDir, agentEnv(environ, a), a.Binary)
		if err != nil {
			return fmt.Errorf("%s %s: %w", role, a.Name, err)
		}
		fmt.Fprintf(w, "%s %s (%s): %s\n", role, a.Name, how, pol)
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
	if p.Proc.Sandbox.Gates && len(p.Gates) > 0 && sbErr != nil {
		fmt.Fprintf(w, "gates (run in it): no sandbox here, the run refuses to start\n")
	} else if p.Proc.Sandbox.Gates && len(p.Gates) > 0 {
		pol, err := p.GateSandbox().Policy(ctx, p.WorkDir, nil, "")
		if err != nil {
			return fmt.Errorf("gates: %w", err)
		}
		fmt.Fprintf(w, "gates (run in it): %s\n", pol)
	}
	return nil
}

// keepAwake says whether the machine is kept from sleeping while a loop runs
// (on, by command; "" where nothing here can).
func keepAwake(on bool, command string) string {
	switch {
	case !on:
		return "off (keep_awake: false, or --keep-awake=false): the machine may sleep mid-run"
	case command == "":
		return "on, but nothing here keeps the machine awake (only macOS's caffeinate): its own power settings apply"
	}
	return "on: " + command + " while a loop runs (keep_awake: false, or --keep-awake=false, lets it sleep)"
}
