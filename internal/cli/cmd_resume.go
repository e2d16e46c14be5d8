package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/session"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// resumeOptions are the flags of `resume`.
type resumeOptions struct {
	loopOptions
	guidance     string
	guidanceFile string
	adr          bool
	accept       bool
	abort        bool
	undoCut      bool
	engine       engineOptions
}

// AddFlags adds the flags of `resume` to fs.
func (o *resumeOptions) AddFlags(fs *pflag.FlagSet) {
	o.loopOptions.AddFlags(fs)
	fs.StringVar(&o.guidance, "guidance", "", "your answer to the escalation, for the next prompt")
	fs.StringVar(&o.guidanceFile, "guidance-file", "", "read the guidance from a file")
	o.engine.AddFlags(fs)
	o.engine.AddHeartbeatFlag(fs)
	fs.BoolVar(&o.adr, "adr", false, "record the guidance as an architecture decision (docs/adr/NNNN-title.md); automatic when the run escalated on architecture")
	fs.BoolVar(&o.accept, "accept", false, "end an escalated run completed, the work tree put at its best checkpoint (what you changed since is kept in a backup ref); runs nothing")
	fs.BoolVar(&o.abort, "abort", false, "end an escalated run as aborted, the work tree left where the loop left it; runs nothing")
	fs.BoolVar(&o.undoCut, "undo-cut", false, "put the work tree back where the attempt cut by the stop started; everything it holds beyond agentloop's last checkpoint (your edits since the stop included) is kept in a backup ref first")
}

func newResumeCmd(d Deps) *cobra.Command {
	var o resumeOptions
	cmd := &cobra.Command{
		Use:   "resume [NAME] [--guidance TEXT|--guidance-file F|--accept|--abort]",
		Short: "Continue an interrupted, aborted or escalated run",
		Long: `Continue a run from its next iteration with its counters, timings and spend.
Without NAME, the only run not yet over; with several, they are listed.
After an escalation, give your answer with --guidance: it goes into the next
prompt and the iteration counter starts again (spend is never reset). With --adr
the answer is also recorded as an architecture decision under docs/adr/. Or end
the escalated run without running anything: --accept puts the work tree at its
best checkpoint and ends the run completed, --abort ends it aborted with the tree
where the loop left it; both say which commit the tree is at.
The run goes on from the work tree as you left it: nothing you made or changed
after the stop is removed or reverted, and the work of an attempt the stop cut
stays too (it is also kept under its iter-N-cut ref, its diff in its folder);
one line says what changed since the stop. --undo-cut puts the tree back where
the cut attempt started instead. Before any checkpoint is restored, what the
tree holds beyond agentloop's last checkpoint (your edits, new files) is kept
in a backup ref, named with the command that brings it back.
The run keeps the flags it was started with; flags given now win. A task of a
task graph (GRAPH-TASK) keeps its graph's plan (its flags, and the task's
procedure, prompt, gates and limits); once it is done, its graph goes on as
'run --tasks' again does.` + exitStatus(
			exitSucceeded,
			exitLine{ExitFailure, "error, no run of that name, or the run already succeeded or completed"},
			exitLine{ExitUsage, "usage or configuration error, an escalated run resumed without --guidance, or no NAME given and several runs to choose from"},
			exitAbortedLine, exitEscalLine, exitInterrupted),
		Example: `  agentloop resume build
  agentloop resume build --max-cost 10          # raise the budget that stopped it
  agentloop resume build --guidance "Keep userId a string; fix the test data" --adr
  agentloop resume build --accept               # after an escalation: keep what it did, stop`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.noteGiven(cmd.Flags())
			return runResume(cmd.Context(), o, d, args)
		},
	}
	o.AddFlags(cmd.Flags())
	markExclusive(cmd, exclusive{[]string{"guidance", "guidance-file", "accept", "abort"},
		"answer the escalation once: --guidance TEXT (or --guidance-file F) goes on with your answer, --accept keeps its best checkpoint and stops, --abort stops"},
		exclusive{[]string{"undo-cut", "accept", "abort"}, "--undo-cut goes on from where the cut attempt started; --accept and --abort run nothing and leave no cut attempt to undo"})
	return cmd
}

// runResume is `agentloop resume NAME`.
func runResume(ctx context.Context, o resumeOptions, d Deps, args []string) error {
	o.engine.config = o.config
	guidance := o.guidance
	if o.guidanceFile != "" {
		b, err := os.ReadFile(o.guidanceFile)
		if err != nil {
			return usageError("read --guidance-file: %w", err)
		}
		guidance = strings.TrimSpace(string(b))
	}
	if onTemporal, err := o.engine.temporal(d); err != nil {
		return err
	} else if onTemporal {
		if len(args) == 0 {
			return usageError("name the run to resume: agentloop resume NAME ('agentloop status' lists them)")
		}
		return resumeTemporal(ctx, o, d, args[0], guidance)
	}
	store, err := openStore(d, "")
	if err != nil {
		return err
	}
	if len(args) == 0 {
		name, err := onlyRun(d, store, "resume", session.Resumable, false)
		if err != nil {
			return err
		}
		args = []string{name}
	}
	name := args[0]
	prev, err := store.Load(name)
	if _, gap := errors.AsType[*state.HistoryGapError](err); gap {
		err = nil // the session says so when it opens the run
	}
	if err != nil {
		if _, ok := errors.AsType[*state.CorruptError](err); ok {
			return fmt.Errorf("%w; there is nothing to resume: start again with 'agentloop run %s'", err, name)
		}
		if ne, ok := errors.AsType[*state.NewerError](err); ok {
			return ne
		}
		return fmt.Errorf("no run named %q to resume in %s ('agentloop status' lists them): %w", name, store.Root, err)
	}
	wd, err := d.Getwd()
	if err != nil {
		return err
	}
	task, isTask, err := graph.Find(store.Root, name)
	if err != nil {
		return err
	}
	var member *tasks.Member
	var inGraph session.InGraph
	// taskRule applies the rules of a graph's task to st ([session.TaskRule]):
	// goOn, its graph goes on (what to say of it said).
	taskRule := func(st *state.State, settle bool) (goOn bool, err error) {
		goOn, say, err := session.TaskRule(st, inGraph, guidance, settle)
		if goOn && say != "" {
			fmt.Fprintln(process(d).Progress(o.logFormat == "json"), say)
		}
		return goOn, err
	}
	if isTask {
		member = &task.Member
		inGraph = session.InGraph{
			ID: task.Task.ID, Outcome: task.State.Outcomes[task.Task.ID], Merged: slices.Contains(task.State.Merged, task.Task.ID),
			Commands: graph.Commands{TaskFile: session.RelPath(wd, task.State.File)},
		}
		// Before anything starts: a merged task's worktree is gone.
		if goOn, err := taskRule(prev, o.accept || o.abort); err != nil {
			return err
		} else if goOn {
			return resumeGraph(ctx, o, d, task)
		}
	}
	p, err := session.ResumePlan(prev, member, configure(d, o.loopOptions), wd, d.Getenv, o.verbose)
	if err != nil {
		return err
	}
	lo, err := o.onRecorded(p.Args)
	if err != nil {
		return err
	}
	if o.accept || o.abort {
		// Nothing runs: the agent need not be there.
		s, err := session.Open(process(d), p, newScreen(d, lo, p), newLogger(d, lo), false)
		if err != nil {
			return err
		}
		return s.Settle(ctx, o.accept)
	}
	if err := p.Preflight(agentHost(ctx, d)); err != nil {
		return err
	}
	log := newLogger(d, lo)
	pr, done, err := notifying(ctx, d, p.Notify, log)
	if err != nil {
		return err
	}
	defer done()
	s, err := session.Open(pr, p, newScreen(d, lo, p), log, false)
	if err != nil {
		return err
	}
	if isTask {
		// Again on the state under the run's lock, which Hold changes.
		if goOn, err := taskRule(s.State(), false); err != nil || goOn {
			s.Close()
			if err != nil {
				return err
			}
			return resumeGraph(ctx, o, d, task)
		}
	}
	if err := s.Resume(ctx, session.ResumeOptions{Guidance: guidance, ADR: o.adr, UndoCut: o.undoCut}); err != nil {
		return err
	}
	err = runSession(ctx, s)
	if !isTask || err != nil {
		return err
	}
	// The task is done: its graph goes on, as run --tasks again does — the
	// task merged if its gates pass on the merged result, its dependents run.
	return resumeGraph(ctx, o, d, task)
}

// resumeGraph goes on with the graph of the task just resumed, as running its
// task file again does, with the flags the graph was run with.
func resumeGraph(ctx context.Context, o resumeOptions, d Deps, task graph.Found) error {
	at := d
	at.Getwd = func() (string, error) { return task.Repo, nil }
	shown := loopOptions{verbose: o.verbose, quiet: o.quiet, logFormat: o.logFormat}
	file := task.State.File
	if wd, err := d.Getwd(); err == nil {
		file = session.RelPath(wd, file)
	}
	fmt.Fprintf(process(d).Progress(o.logFormat == "json"), "Task %s is done; its graph %s goes on, as 'agentloop run --tasks %s' does\n", task.Task.ID, task.Graph, file)
	return runGraph(ctx, at, session.GraphOptions{
		TaskFile: task.State.File, Configure: configure(at, shown), Getenv: d.Getenv,
		Verbose: o.verbose, JSON: o.logFormat == "json", Log: newLogger(d, shown), Host: agentHost(ctx, d),
	})
}
