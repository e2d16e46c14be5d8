package cli

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/config"
)

// runOptions are the flags of `run`.
type runOptions struct {
	loopOptions
	dryRun      bool
	tasks       string
	parallel    int
	engine      engineOptions
	workerQueue string
	mergeQueue  string
	detach      bool
	issue       string
}

// AddFlags adds the flags of `run` to fs.
func (o *runOptions) AddFlags(fs *pflag.FlagSet) {
	o.loopOptions.AddFlags(fs)
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the assembled prompt and its token count, run nothing")
	fs.StringVar(&o.tasks, "tasks", "", "run a task graph from a tasks.yaml or a Markdown checklist")
	fs.StringVar(&o.issue, "issue", "", "run a tracker issue (owner/repo#N, its URL, or #N in its clone) on a branch of its own, and open its pull request (see docs/issues.md)")
	fs.IntVar(&o.parallel, "parallel", 1, "with --tasks: how many independent tasks run at once")
	o.engine.AddFlags(fs)
	fs.StringVar(&o.workerQueue, "worker-queue", "", "with --engine temporal: run the steps on the worker polling this queue (the one holding the work tree)")
	o.engine.AddHeartbeatFlag(fs)
	fs.BoolVar(&o.detach, "detach", false, "with --engine temporal: start the run and return, without following it (follow it later with agentloop follow NAME)")
	fs.StringVar(&o.mergeQueue, "merge-queue", "", "with --tasks --engine temporal: merge the tasks back on the worker polling this queue, which holds the repository the graph is started in (default --worker-queue, else any worker)")
}

func newRunCmd(d Deps) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run [PROCEDURE]",
		Short: "Run a loop (the default procedure when none is named)",
		Long: `Run a procedure's loop: each iteration starts the agent as a fresh process with a
freshly composed prompt, then runs the quality gates and the reviewer, and decides
from the evidence whether to go on, stop with success, or ask you.
With --issue, run an issue of GitHub (or GitHub Enterprise, GH_HOST): its title, body
and its maintainers' comments are the task (anyone else's words are marked as data),
the run works on the branch agentloop/issue/N in a worktree of its own, keeps one
progress comment and the labels up to date, and opens the pull request, its body the
run's receipt; an escalation is asked on the issue, and 'run --issue' again takes a
maintainer's answer (/agentloop guide TEXT, accept or abort).
With --tasks, run a task graph: every task a loop of its own in its own git worktree
and branch, independent ones in parallel; a task starts once its dependencies are
merged, and is merged as soon as it is done if its required gates pass on the
merged result. The graph exits 0 only when every task's work is merged, and lists
each task that is not with the command that finishes it.` + exitStatus(loopExits...),
		Example: `  agentloop run --max-iterations 5 --agent claude --gate 'go test ./...'
  agentloop run fix-tests --agent-cmd 'my-agent --yes' --context TASK.md
  agentloop run --dry-run -v
  agentloop run --issue acme/tool#12 --agent claude --gate 'go test ./...'`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.noteGiven(cmd.Flags())
			return runRun(cmd.Context(), o, d, args)
		},
	}
	o.AddFlags(cmd.Flags())
	markExclusive(cmd,
		exclusive{[]string{"issue", "tasks"}, "--issue runs one issue on a branch of its own; --tasks runs a task graph"},
		exclusive{[]string{"issue", "detach"}, "--issue follows the run to its pull request or its question on the issue; --detach starts a run and returns"},
		exclusive{[]string{"issue", "dry-run"}, "--issue reads its task from the issue and writes on it; --dry-run shows a run's prompt and runs nothing"})
	return cmd
}

// runRun is `agentloop run [PROCEDURE]`.
func runRun(ctx context.Context, o runOptions, d Deps, args []string) error {
	o.engine.config = o.config
	if o.detach && o.tasks != "" {
		return usageError("--detach starts a single run; a graph (--tasks) is followed by the command that starts it, and shown by 'agentloop status --engine temporal'")
	}
	eng, err := chooseEngine(ctx, d, o.engine, engineUse{lo: o.loopOptions, starts: true})
	if err != nil {
		return err
	}
	defer eng.Close()
	at := app.Server{WorkerQueue: o.workerQueue, Flags: o.serverFlags()}
	if o.tasks != "" {
		return runTasks(ctx, o, d, eng, at)
	}
	name := ""
	if len(args) == 1 {
		name = args[0]
	}
	po, err := planOptions(d, o.loopOptions, name)
	if err != nil {
		return err
	}
	p, err := app.ResolvePlan(po)
	if err != nil {
		return err
	}
	if o.issue != "" {
		p.Args = append(o.recorded(), o.envLimits(d.Getenv)...)
		return followed(app.RunIssue(ctx, eng, process(d), app.IssueOptions{
			Ref: o.issue, Plan: p, Server: at, Configure: configure(d, o.loopOptions), Forge: forgeOf(d),
			Verbose: o.verbose, JSON: o.logFormat == "json",
		}))
	}
	if o.dryRun {
		return app.DryRun(d.Stdout, p, app.NewHost(ctx, hostOf(d)))
	}
	p.Args = append(o.recorded(), o.envLimits(d.Getenv)...)
	if o.detach {
		return eng.Detach(ctx, p, at)
	}
	return followed(eng.Run(ctx, p, at))
}

// runTasks is `agentloop run --tasks FILE`: the graph run on eng, its
// exit 0 only when every task's work is merged back.
func runTasks(ctx context.Context, o runOptions, d Deps, eng app.Engine, at app.Server) error {
	parallel := 0 // the task file's
	if o.isGiven("parallel") {
		parallel = max(o.parallel, 1)
	}
	gopts := app.GraphOptions{
		Server: at, TaskFile: o.tasks, Configure: configure(d, o.loopOptions), Parallel: parallel, MergeQueue: o.mergeQueue,
		Verbose: o.verbose, JSON: o.logFormat == "json",
	}
	if o.dryRun {
		gopts.Getenv, gopts.Log, gopts.Host = d.Getenv, newLogger(d, o.loopOptions), app.NewHost(ctx, hostOf(d))
		return app.DryRunGraph(ctx, d.Stdout, process(d), gopts)
	}
	return followed(eng.RunGraph(ctx, gopts))
}

// planOptions are how the named procedure resolves with the flags of o
// ([app.ResolvePlan]).
func planOptions(d Deps, o loopOptions, name string) (app.PlanOptions, error) {
	wd, err := d.Getwd()
	if err != nil {
		return app.PlanOptions{}, err
	}
	return app.PlanOptions{
		Load: func() (*config.Config, error) { return loadConfig(d, o.config, o.overrides()) },
		Name: name, WorkDir: wd, Getenv: d.Getenv, Verbose: o.verbose,
	}, nil
}
