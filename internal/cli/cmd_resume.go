package cli

import (
	"context"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
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
	eng, err := chooseEngine(ctx, d, o.engine, engineUse{lo: o.loopOptions, shown: o.onRecorded})
	if err != nil {
		return err
	}
	defer eng.Close()
	name := ""
	if len(args) == 1 {
		name = args[0]
	}
	// The graph of a task goes on with the flags it ran with: only --config
	// and the server's given now.
	graphFlags := loopOptions{verbose: o.verbose, quiet: o.quiet, logFormat: o.logFormat, config: o.config}
	for _, g := range o.given {
		if isServerFlag(g.name) {
			graphFlags.given = append(graphFlags.given, g)
		}
	}
	return followed(eng.Resume(ctx, name, app.ResumeOptions{
		Server:    app.Server{Flags: o.serverFlags()},
		Heartbeat: o.engine.heartbeat, Guidance: guidance, ADR: o.adr, Accept: o.accept, Abort: o.abort, UndoCut: o.undoCut,
		Configure: configure(d, o.loopOptions), GraphConfigure: configure(d, graphFlags),
		Verbose: o.verbose, JSON: o.logFormat == "json",
	}))
}
