package cli

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
)

// followOptions are the flags of `follow`.
type followOptions struct {
	// lo are the loop flags follow takes (how the run is shown, the
	// configuration and the receivers of its notifications), given as to a
	// resume: on top of those the run recorded.
	lo     loopOptions
	engine engineOptions
}

// AddFlags adds the flags of `follow` to fs.
func (o *followOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.lo.logFormat, "log-format", "", "progress output: text or json")
	fs.BoolVarP(&o.lo.verbose, "verbose", "v", false, "show what the agent says and does (a line per text and tool call) and more detail")
	fs.BoolVarP(&o.lo.quiet, "quiet", "q", false, "print only warnings and the final line")
	fs.StringArrayVar(&o.lo.notify, "notify", nil, "also notify this receiver of what happens while it follows (repeatable): "+app.NotifyTargetSyntax)
	fs.StringVar(&o.lo.config, "config", "", "workspace configuration file (default ./agentloop.yaml): its temporal: keys, and where the run's notifications go")
	o.engine.AddFlags(fs)
}

func newFollowCmd(d Deps) *cobra.Command {
	var o followOptions
	cmd := &cobra.Command{
		Use:   "follow NAME --engine temporal",
		Short: "Follow a run on Temporal until it ends or needs you (after run --detach or Ctrl-C)",
		Long: `Follow the run NAME on the Temporal server, as the run command follows the run
it starts: its events so far, then each as it comes, until the run ends or waits
for you; its exit is the run's outcome, as run's would be. A run that ended or
waits is shown at once. Ctrl-C stops following; the run goes on on the workers.
The notifications of what happens while it follows are sent from here, as run
sends them (a run started with run --detach has no other follower).
A local run lives in the process that runs it: watch it with agentloop watch.` + exitStatus(loopExits...),
		Example: `  agentloop run --engine temporal --detach
  agentloop follow build --engine temporal`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.lo.noteGiven(cmd.Flags())
			return runFollow(cmd.Context(), o, d, args[0])
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runFollow is `agentloop follow NAME`.
func runFollow(ctx context.Context, o followOptions, d Deps, name string) error {
	o.engine.config = o.lo.config
	eng, err := chooseEngine(ctx, d, o.engine, engineUse{lo: o.lo, shown: o.lo.onRecorded})
	if err != nil {
		return err
	}
	defer eng.Close()
	if o.lo.verbose && o.lo.quiet {
		return usageError("choose -v (more output) or -q (less)")
	}
	return followed(eng.Follow(ctx, name, app.FollowOptions{Configure: configure(d, o.lo), Verbose: o.lo.verbose}))
}
