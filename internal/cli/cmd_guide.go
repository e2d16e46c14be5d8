package cli

import (
	"context"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// guideOptions are the flags of `guide`.
type guideOptions struct {
	file     string
	stateDir string
	engine   engineOptions
}

// AddFlags adds the flags of `guide` to fs.
func (o *guideOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.file, "file", "", "read the guidance from a file")
	fs.StringVar(&o.stateDir, "state-dir", "", "state folder (default .agentloop, or state_dir from the configuration)")
	o.engine.AddFlags(fs)
	o.engine.AddConfigFlag(fs)
}

func newGuideCmd(d Deps) *cobra.Command {
	var o guideOptions
	cmd := &cobra.Command{
		Use:   "guide NAME [TEXT|--file F]",
		Short: "Steer a running loop: its next iteration's prompt carries your guidance",
		Long: `Queue guidance for the run NAME (a run, or a graph's task GRAPH-TASK) while it runs,
from any terminal. The loop takes it when its current iteration ends: the next
iteration's prompt and every later one carry it, the reviewer sees it, and the run
says "Guidance applied in iteration N" (its events, status and report). Guidance
queued for an interrupted run is taken when it is resumed, and survives a crash:
it is applied once. An escalated run waits for its answer instead:
agentloop resume NAME --guidance TEXT.

With --engine temporal the guidance goes to the workflow of NAME on the server,
which takes it at the same boundary.` + exitStatus(
			exitSuccess,
			exitLine{ExitFailure, "error: no run NAME, or its queue cannot be written"},
			exitLine{ExitUsage, "usage error: no guidance, or the run escalated or ended"}),
		Args: usageArgs(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, args []string) error { return runGuide(cmd.Context(), o, d, args) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runGuide is `agentloop guide NAME TEXT`.
func runGuide(ctx context.Context, o guideOptions, d Deps, args []string) error {
	var text string
	switch {
	case len(args) == 2 && o.file != "":
		return usageError("give the guidance once: as TEXT or with --file")
	case len(args) == 2:
		text = args[1]
	case o.file != "":
		b, err := os.ReadFile(o.file)
		if err != nil {
			return usageError("read --file: %w", err)
		}
		text = string(b)
	}
	eng, err := chooseEngine(ctx, d, o.engine, engineUse{stateDir: o.stateDir})
	if err != nil {
		return err
	}
	defer eng.Close()
	return eng.Guide(ctx, args[0], strings.TrimSpace(text))
}
