//go:build temporal

package cli

import (
	"context"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentloop/agentloop/internal/notify"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/ui"
)

// temporalWatch is the notifications' watch of the Temporal run of p (runID)
// that this process follows: the follower sends them, as a local run's
// process does, each delivery and failure shown on screen. nil when p
// configures no receiver; done waits for the deliveries under way.
func temporalWatch(ctx context.Context, d Deps, lo loopOptions, p *plan.Plan, runID string, screen *ui.Printer) (w *notify.Watch, done func(), err error) {
	pr, done, err := notifying(ctx, d, p.Notify, newLogger(d, lo))
	if err != nil {
		return nil, nil, err
	}
	run := notify.Run{Name: p.Name, ID: runID, Procedure: p.Proc.Name, Repo: p.WorkDir, Engine: "temporal"}
	return pr.Notify.Watch(run, screen.Event), done, nil
}

// completedView is the view of the run key, which ended (v), once its
// workflow completed: what the workflow records after the loop's end (a
// stopped run's needs-you) is in it. v when the workflow does not complete
// within a minute, or cannot be read.
func completedView(ctx context.Context, c client.Client, key string, v temporal.View) temporal.View {
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_ = c.GetWorkflow(wait, temporal.WorkflowID(key), "").Get(wait, nil)
	if wait.Err() != nil {
		return v
	}
	if done, err := temporal.Query(ctx, c, key); err == nil {
		return done
	}
	return v
}
