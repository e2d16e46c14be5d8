//go:build temporal

package cli

import (
	"context"

	"github.com/agentloop/agentloop/internal/session"
	"github.com/agentloop/agentloop/internal/temporal"
)

// cleanRunsTemporal is how the runs on the Temporal server stand, for
// `agentloop clean --engine temporal`.
func cleanRunsTemporal(ctx context.Context, o cleanOptions, d Deps) ([]session.EngineRun, error) {
	c, _, err := dialTemporal(ctx, d, o.engine, loopOptions{})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return temporal.CleanRuns(ctx, c)
}
