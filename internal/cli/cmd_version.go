package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newVersionCmd(d Deps) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Long:  "Print the version of this build." + exitStatus(exitSuccess, exitUsageLine),
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(d.Stdout, "agentloop %s\n", Version)
			return nil
		},
	}
}
