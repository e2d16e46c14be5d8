package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/config"
)

// newEnvironmentTopic is `agentloop help environment`: every AGENTLOOP_*
// variable, from the configuration's own table.
func newEnvironmentTopic() *cobra.Command {
	var b strings.Builder
	b.WriteString("Environment variables override the configuration files; flags override them.\nA limit set here is kept with the run, like a flag: 'agentloop resume' keeps it.\n\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, v := range config.Environment() {
		fmt.Fprintf(tw, "  %s\t%s\n", v.Name, v.Means)
	}
	_ = tw.Flush()
	b.WriteString("\nNO_COLOR (any value) and TERM=dumb turn colours off; TERM=dumb also the live status line.\n")
	return &cobra.Command{
		Use:   "environment",
		Short: "The environment variables agentloop reads",
		Long:  b.String(),
	}
}
