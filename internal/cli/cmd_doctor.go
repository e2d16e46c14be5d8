package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/app"
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
would run it.

Then which credential run --issue and serve would act with on the forge of
the origin remote (GH_HOST's, or github.com's): the GitHub App and its
installation (its key file read), GH_TOKEN or another of gh's variables, gh's
login, or none; never a secret. And whether git pushes the issue's branch
with it.` + exitStatus(exitSuccess, exitError, exitUsageLine),
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return runDoctor(cmd.Context(), d, o, args) },
	}
	cmd.Flags().StringVar(&o.agent, "agent", "", "show this agent preset or configured agent instead of the procedure's")
	cmd.Flags().StringVar(&o.config, "config", "", "workspace configuration file (default ./agentloop.yaml)")
	return cmd
}

// runDoctor is `agentloop doctor`.
func runDoctor(ctx context.Context, d Deps, o doctorOptions, args []string) error {
	lo := loopOptions{config: o.config, agent: o.agent}
	if o.agent != "" {
		lo.given = []givenFlag{{name: "agent", values: []string{o.agent}}}
	}
	name := ""
	if len(args) == 1 {
		name = args[0]
	}
	po, err := planOptions(d, lo, name)
	if err != nil {
		return err
	}
	return app.Doctor(ctx, d.Stdout, d.Environ(), po, forgeOf(d))
}
