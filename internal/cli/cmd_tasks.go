package cli

import (
	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/session"
	"github.com/agentloop/agentloop/internal/tasks"
)

// runTasks is `agentloop run --tasks FILE`: every task a loop of its own in its
// own git worktree and branch, independent ones in parallel, merged back in
// dependency order.
func runTasks(cmd *cobra.Command, d Deps, f *runFlags) error {
	cfg, err := loadConfig(d, f.config, overrides(cmd, f))
	if err != nil {
		return err
	}
	parallel := 0
	if cmd.Flags().Changed("parallel") {
		parallel = max(f.parallel, 1)
	}
	res, err := session.RunGraph(cmd.Context(), process(d), session.GraphOptions{
		TaskFile: f.tasks, Config: cfg, Getenv: d.Getenv, Parallel: parallel,
		Verbose: f.verbose, JSON: f.logFormat == "json", Log: newLogger(d, f),
	})
	switch {
	case err != nil:
		return err
	case res.Interrupted:
		return &ExitError{Code: ExitInterrupted}
	}
	return &ExitError{Code: graphExit(res.Outcomes, res.BudgetExhausted)}
}

// graphExit is the exit code of a finished graph: 0 when every task is done.
func graphExit(out map[string]tasks.Outcome, budgetExhausted bool) int {
	code := ExitOK
	for _, o := range out {
		switch o.State {
		case tasks.StateEscalated, tasks.StateBlocked:
			code = max(code, ExitEscalated)
		case tasks.StateFailed, tasks.StateSkipped, tasks.StatePending:
			code = max(code, ExitAborted)
		}
	}
	if budgetExhausted {
		code = max(code, ExitAborted)
	}
	if code == ExitEscalated {
		return ExitEscalated
	}
	return code
}
