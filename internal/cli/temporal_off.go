//go:build !temporal

package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/inbox"
	"github.com/agentloop/agentloop/internal/ledger"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/session"
)

// temporalBuilt says whether this build holds the Temporal engine: without it
// the engine's flags are hidden from help (they are still accepted).
const temporalBuilt = false

// errNoTemporal is the answer of this build to anything that needs the Temporal engine.
func errNoTemporal() error {
	return usageError("this agentloop was built without the Temporal engine: go build -tags temporal ./cmd/agentloop")
}

func runTemporal(context.Context, runOptions, Deps, *plan.Plan) error { return errNoTemporal() }

func runTasksTemporal(context.Context, runOptions, Deps) error { return errNoTemporal() }

func resumeTemporal(context.Context, resumeOptions, Deps, string, string) error {
	return errNoTemporal()
}

func spendTemporal(context.Context, engineOptions, Deps, []ledger.Cap) (ledger.Report, string, error) {
	return ledger.Report{}, "", errNoTemporal()
}

func approveTemporal(context.Context, engineOptions, Deps, []ledger.Cap, string) ([]string, error) {
	return nil, errNoTemporal()
}

func stopTemporal(context.Context, stopOptions, Deps, string) error { return errNoTemporal() }

func followTemporal(context.Context, followOptions, Deps, string) error { return errNoTemporal() }

func detachTemporal(context.Context, runOptions, Deps, *plan.Plan) error { return errNoTemporal() }

func guideTemporal(context.Context, guideOptions, Deps, string, string) error {
	return errNoTemporal()
}

func statusTemporal(context.Context, statusOptions, Deps, []string) error { return errNoTemporal() }

func reportTemporal(context.Context, reportOptions, Deps, string) error { return errNoTemporal() }

func cleanRunsTemporal(context.Context, cleanOptions, Deps) ([]session.EngineRun, error) {
	return nil, errNoTemporal()
}

func inboxTemporal(context.Context, inboxOptions, Deps) ([]inbox.Item, error) {
	return nil, errNoTemporal()
}

func watchTemporal(context.Context, Deps, engineOptions) (func(time.Time) (session.View, error), string, func(), error) {
	return nil, "", nil, errNoTemporal()
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
