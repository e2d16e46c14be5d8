package cli

import (
	"time"

	"github.com/spf13/cobra"
)

// runFlags are the flags of `run` (and, where they apply, `resume`).
type runFlags struct {
	maxIterations    int
	failureThreshold int
	agent            string
	agentCmd         string
	contexts         []string
	gates            []string
	reviewer         string
	iterationTimeout time.Duration
	timeout          time.Duration
	maxTokens        int64
	maxCost          float64
	dryRun           bool
	config           string
	logFormat        string
	verbose          bool
	quiet            bool
	tasks            string
	parallel         int
}

func newRunCmd(d Deps) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [PROCEDURE]",
		Short: "Run a loop (the default procedure when none is named)",
		Long: `Run a procedure's loop: each iteration starts the agent as a fresh process with a
freshly composed prompt, then runs the quality gates and the reviewer, and decides
from the evidence whether to go on, stop with success, or ask you.

Exit codes: 0 succeeded or completed, 1 error, 2 usage or configuration error,
3 aborted (failure threshold or budget), 4 escalated (waiting for you), 130 interrupted.`,
		Example: `  agentloop run --max-iterations 5 --agent claude --gate 'go test ./...'
  agentloop run fix-tests --agent-cmd 'my-agent --yes' --context TASK.md
  agentloop run --dry-run -v`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			return runProcedure(cmd, d, &f, name)
		},
	}
	addRunFlags(cmd, &f)
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "print the assembled prompt and its token count, run nothing")
	cmd.Flags().StringVar(&f.tasks, "tasks", "", "run a task graph from a tasks.yaml or a Markdown checklist")
	cmd.Flags().IntVar(&f.parallel, "parallel", 1, "with --tasks: how many independent tasks run at once")
	return cmd
}

func addRunFlags(cmd *cobra.Command, f *runFlags) {
	fl := cmd.Flags()
	fl.IntVar(&f.maxIterations, "max-iterations", 0, "stop after N iterations (0: unlimited; default from the procedure)")
	fl.IntVar(&f.failureThreshold, "failure-threshold", 0, "abort after N consecutive failed iterations (default 3)")
	fl.StringVar(&f.agent, "agent", "", "agent preset or configured agent name (see 'agentloop agents')")
	fl.StringVar(&f.agentCmd, "agent-cmd", "", "run this command as the agent (shell syntax; prompt on stdin)")
	fl.StringArrayVar(&f.contexts, "context", nil, "context file or text for the prompt (repeatable)")
	fl.StringArrayVar(&f.gates, "gate", nil, "quality gate command run after each iteration (repeatable)")
	fl.StringVar(&f.reviewer, "reviewer", "", "reviewer agent preset or name")
	fl.DurationVar(&f.iterationTimeout, "iteration-timeout", 0, "end an iteration's agent after this long (e.g. 30m)")
	fl.DurationVar(&f.timeout, "timeout", 0, "end the whole run after this long")
	fl.Int64Var(&f.maxTokens, "max-tokens", 0, "token budget for the run")
	fl.Float64Var(&f.maxCost, "max-cost", 0, "cost budget for the run, in USD")
	fl.StringVar(&f.config, "config", "", "workspace configuration file (default ./agentloop.yaml)")
	fl.StringVar(&f.logFormat, "log-format", "", "progress output: text or json")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "stream the agent's output and show more detail")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print only warnings and the final line")
	cmd.MarkFlagsMutuallyExclusive("agent", "agent-cmd")
	cmd.MarkFlagsMutuallyExclusive("verbose", "quiet")
}
