//go:build temporal

package cli

import (
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/temporal"
)

// workerTaskPlan rebuilds the plan of a task of a graph on a worker, by the
// rule every resume of a task follows ([graph.ResumePlan]): the configuration
// of the graph's repository (on this worker's disk, see [temporal.RunRef.On])
// with the run's recorded flags, the task applied, in its worktree.
func workerTaskPlan(d Deps, lo loopOptions, r temporal.RunRef) (*plan.Plan, error) {
	p, err := graph.ResumePlan(r.Task.Member(), r.Args, configure(d, loopOptions{}), d.Getenv, lo.verbose)
	if err != nil {
		return nil, err
	}
	p.Args = r.Args
	return p, nil
}
