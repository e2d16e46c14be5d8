package cli

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
)

// serveOptions are the flags of `serve`.
type serveOptions struct {
	loopOptions
	engine      engineOptions
	issues      string
	every       time.Duration
	parallel    int
	maxPerIssue float64
	once        bool
}

// AddFlags adds the flags of `serve` to fs.
func (o *serveOptions) AddFlags(fs *pflag.FlagSet) {
	o.loopOptions.AddFlags(fs)
	o.engine.AddFlags(fs)
	fs.StringVar(&o.issues, "issues", "", "the issues to take, as search writes them: label:NAME (all must be on an issue), repo:OWNER/NAME outside a clone (default: label:agentloop, the configuration's issues: labels: queued)")
	fs.DurationVar(&o.every, "every", app.DefaultServeEvery, "the wait between two polls of the issues (unchanged lists cost no request GitHub counts); doubled after a poll that failed, up to 15m")
	fs.IntVar(&o.parallel, "parallel", 1, "how many issues run at once, each in a worktree of its own")
	fs.Float64Var(&o.maxPerIssue, "max-cost-per-issue", 0, "cap each issue's run at this many US dollars (a lower --max-cost or configured limit stands)")
	fs.BoolVar(&o.once, "once", false, "poll once, run what is found, wait for those runs and return (for cron)")
}

func newServeCmd(d Deps) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Take a tracker's labelled issues as they come and run each to its pull request",
		Long: `Poll the tracker (GitHub, or GitHub Enterprise: GH_HOST) for the open issues labelled
for agentloop and run each as 'agentloop run --issue' does: claimed with labels and one
progress comment, worked on in a worktree of its own on the branch agentloop/issue/N, its
pull request opened with the run's receipt, or its question asked on the issue. An issue
blocked by an open issue waits for it; one whose run failed is taken again later; one
that waits for a person is taken again when a person changed it, so a maintainer's answer
(/agentloop guide TEXT, accept or abort) goes on with its run. The flags of run set
each issue's loop. Ctrl-C stops polling and ends the runs under way as Ctrl-C ends a run.` + exitStatus(exitSucceeded, exitError, exitUsageLine, exitInterrupted),
		Example: `  agentloop serve --agent claude --gate 'go test ./...' --max-cost-per-issue 5
  agentloop serve --issues 'label:agentloop label:backend' --parallel 2
  agentloop serve --once          # from cron: one poll, its runs, then exit`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.noteGiven(cmd.Flags())
			return runServe(cmd.Context(), o, d)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runFlags are the flags given that shape each issue's run, recorded with
// it: run's, not serve's own (how it polls), which a resume of the run
// (its answer taken, a continuation for its pull request) could not parse.
func (o *serveOptions) runFlags() []string {
	run := pflag.NewFlagSet("run", pflag.ContinueOnError)
	new(loopOptions).AddFlags(run)
	var args []string
	for _, a := range o.recorded() {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if run.Lookup(name) != nil {
			args = append(args, a)
		}
	}
	return args
}

// runServe is `agentloop serve`.
func runServe(ctx context.Context, o serveOptions, d Deps) error {
	if o.parallel < 1 {
		return usageError("--parallel %d: want 1 or more", o.parallel)
	}
	if o.every < time.Second {
		return usageError("--every %s: want a second or more (GitHub asks clients not to poll faster)", o.every)
	}
	if o.maxPerIssue < 0 {
		return usageError("--max-cost-per-issue %g: want a cost in US dollars, 0 or more", o.maxPerIssue)
	}
	o.engine.config = o.config
	eng, err := chooseEngine(ctx, d, o.engine, engineUse{lo: o.loopOptions, starts: true})
	if err != nil {
		return err
	}
	defer eng.Close()
	po, err := planOptions(d, o.loopOptions, "")
	if err != nil {
		return err
	}
	_, err = app.ServeIssues(ctx, eng, process(d), app.ServeIssuesOptions{
		Query: o.issues, Plan: po, Args: append(o.runFlags(), o.envLimits(d.Getenv)...), MaxCostPerIssue: o.maxPerIssue,
		Every: o.every, Parallel: o.parallel, Once: o.once,
		Server: app.Server{Flags: o.serverFlags()}, Configure: configure(d, o.loopOptions), Forge: forgeOf(d),
		Verbose: o.verbose, JSON: o.logFormat == "json", Log: newLogger(d, o.loopOptions),
	})
	if err == nil && ctx.Err() != nil {
		return &ExitError{Code: ExitInterrupted}
	}
	return err
}
