//go:build !temporal

package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/app"
)

// temporalBuilt says whether this build holds the Temporal engine: without it
// the engine's flags are hidden from help (they are still accepted).
const temporalBuilt = false

// errNoTemporal is the answer of this build to anything that needs the Temporal engine.
func errNoTemporal() error {
	return usageError("this agentloop was built without the Temporal engine: go build -tags temporal ./cmd/agentloop")
}

// temporalEngine is the Temporal engine, which this build does not have.
func temporalEngine(context.Context, Deps, engineOptions, engineUse) (app.Engine, error) {
	return nil, errNoTemporal()
}

// newWorkerCmd is `agentloop worker`, which this build does not have.
func newWorkerCmd(Deps) *cobra.Command {
	return &cobra.Command{
		Use:   "worker",
		Short: "Run a Temporal worker (needs a build with -tags temporal)",
		Long: `Run a Temporal worker. This build does not have the Temporal engine; build one
that has it with: go build -tags temporal ./cmd/agentloop` + exitStatus(exitLine{ExitUsage, "always: this build has no Temporal engine"}),
		Args: cobra.ArbitraryArgs,
		// Whatever the flags, the answer is how to get a build that has it.
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE:               func(*cobra.Command, []string) error { return errNoTemporal() },
	}
}
