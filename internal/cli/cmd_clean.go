package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
)

// cleanOptions are the flags of `clean`.
type cleanOptions struct {
	force    bool
	all      bool
	stateDir string
	engine   engineOptions
	// remote is the git remote the workers' clones share, whose checkpoint
	// refs are cleaned too (--engine temporal).
	remote string
}

// AddFlags adds the flags of `clean` to fs.
func (o *cleanOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVarP(&o.force, "force", "f", false, "remove what is listed (without it, clean only lists)")
	fs.BoolVar(&o.all, "all", false, "also runs that could be resumed (escalated, interrupted, stopped by a crash)")
	fs.StringVar(&o.stateDir, "state-dir", "", "state folder (default .agentloop, or state_dir from the configuration)")
	fs.StringVar(&o.remote, "checkpoint-remote", "", "with --engine temporal: also remove the checkpoint refs on this git remote (the one the workers share) of the runs removed, of earlier runs and of runs the server no longer has")
	o.engine.AddFlags(fs)
	o.engine.AddConfigFlag(fs)
}

func newCleanCmd(d Deps) *cobra.Command {
	var o cleanOptions
	cmd := &cobra.Command{
		Use:   "clean [NAME...] [-f]",
		Short: "List, then with -f remove, old runs, task worktrees, branches and checkpoints",
		Long: `List what can be removed from the state folder and the repository, and with
-f (--force) remove it, as 'git clean' does: nothing is removed without -f.

Removed: the runs that ended (succeeded, completed, aborted) with their state,
logs and checkpoints (refs/agentloop/NAME/RUN/…); the folders and checkpoints
of runs that no longer exist or that a newer run of the same name replaced;
the worktrees of task graphs' tasks whose run is removed, their branches when
merged; a task graph's state once none of its tasks' runs is left.

Kept: a run that a live process owns, always (even when named); a run that may
be resumed (escalated, interrupted, stopped by a crash), with its worktree,
unless --all or its NAME is given; a task branch that is not merged, unless
--all or its run or graph is named. NAME is a run or a task graph.

With --engine temporal, the runs on the Temporal server are weighed as the
local ones are, by how their last workflow stands: what a running or waiting
run has in this clone is kept; what an ended run left here (its run folders,
checkpoints, task worktree and branch) goes, as for a local run. Each clone
cleans its own: run it in the clone of every worker (and in the one the runs
were started from). With --checkpoint-remote REMOTE it also removes the
checkpoint refs on the remote the workers share. Without --engine temporal,
what the runs on Temporal keep in a worker's clone is left whole, each such
run named: only the server knows whether it goes on.` + exitStatus(
			exitSuccess,
			exitLine{ExitFailure, "error: something could not be removed, or no run or task graph named NAME"},
			exitUsageLine),
		Example: `  agentloop clean              # list what would be removed, and what is kept
  agentloop clean -f           # remove it
  agentloop clean -f fix-auth  # remove the run fix-auth even though it escalated
  agentloop clean -f --all     # every run no process owns
  agentloop clean -f --engine temporal --checkpoint-remote origin  # a fleet's clone and shared remote`,
		Args: usageArgs(cobra.ArbitraryArgs),
		ValidArgsFunction: func(cmd *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
			return matching(runNames(cmd, d), prefix), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runClean(cmd.Context(), o, d, args) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runClean is `agentloop clean`.
func runClean(ctx context.Context, o cleanOptions, d Deps, names []string) error {
	dir, err := stateDir(d, o.stateDir)
	if err != nil {
		return err
	}
	wd, err := d.Getwd()
	if err != nil {
		return err
	}
	eng, err := chooseEngine(ctx, d, o.engine, engineUse{stateDir: o.stateDir})
	if err != nil {
		return err
	}
	defer eng.Close()
	plan, err := eng.Clean(ctx, app.CleanOptions{StateDir: dir, Repo: wd, Names: names, All: o.all, Remote: o.remote})
	if plan == nil {
		return err
	}
	if err != nil {
		fmt.Fprintf(d.Stderr, "agentloop: warning: %v\n", err)
	}
	if len(plan.Remove) == 0 {
		fmt.Fprintln(d.Stdout, "Nothing to clean.")
		writeCleanItems(d.Stdout, "Kept:", plan.Keep)
		return nil
	}
	if !o.force {
		writeCleanItems(d.Stdout, "Would remove (run 'agentloop clean -f' to remove it):", plan.Remove)
		writeCleanItems(d.Stdout, "Kept:", plan.Keep)
		return nil
	}
	removed, err := plan.Apply(ctx)
	writeCleanItems(d.Stdout, "Removed:", removed)
	writeCleanItems(d.Stdout, "Kept:", plan.Keep)
	if err != nil {
		return fmt.Errorf("clean: %w", err)
	}
	return nil
}

// writeCleanItems writes a titled list of what clean removes or keeps.
func writeCleanItems(w io.Writer, title string, items []app.CleanItem) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintln(w, title)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, it := range items {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", it.Kind, it.Name, it.Note)
	}
	tw.Flush()
}
