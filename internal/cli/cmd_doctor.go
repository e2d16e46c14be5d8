package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/proc"
)

func newDoctorCmd(d Deps) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Say how agentloop contains what agents and gates start on this machine",
		Long: `Say how agentloop contains the processes that agents and gates start on this
machine: in a cgroup of their own per run (Linux, where agentloop may create one;
AGENTLOOP_CGROUP=off turns it off), as orphans agentloop adopts as subreaper
(Linux otherwise), or by process group only (a process that calls setsid
escapes).` + exitStatus(exitSuccess, exitUsageLine),
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runDoctor(cmd.Context(), d) },
	}
}

// runDoctor is `agentloop doctor`.
func runDoctor(ctx context.Context, d Deps) error {
	fmt.Fprintf(d.Stdout, "containment: %s\n", proc.GroupsFrom(ctx).Contains())
	return nil
}
