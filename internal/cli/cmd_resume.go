package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/session"
	"github.com/agentloop/agentloop/internal/state"
)

func newResumeCmd(d Deps) *cobra.Command {
	var f runFlags
	var guidance, guidanceFile string
	var adr bool
	cmd := &cobra.Command{
		Use:   "resume NAME [--guidance TEXT|--guidance-file F]",
		Short: "Continue an interrupted, aborted or escalated run",
		Long: `Continue a run from its next iteration with its counters, timings and spend.
After an escalation, give your answer with --guidance: it goes into the next
prompt and the iteration counter starts again (spend is never reset). With --adr
the answer is also recorded as an architecture decision under docs/adr/.`,
		Example: `  agentloop resume build
  agentloop resume build --max-cost 10          # raise the budget that stopped it
  agentloop resume build --guidance "Keep userId a string; fix the test data" --adr`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			text := guidance
			if guidanceFile != "" {
				b, err := os.ReadFile(guidanceFile)
				if err != nil {
					return usageError("read --guidance-file: %w", err)
				}
				text = strings.TrimSpace(string(b))
			}
			return resume(cmd, d, &f, args[0], text, adr)
		},
	}
	addRunFlags(cmd, &f)
	cmd.Flags().StringVar(&guidance, "guidance", "", "your answer to the escalation, for the next prompt")
	cmd.Flags().StringVar(&guidanceFile, "guidance-file", "", "read the guidance from a file")
	cmd.Flags().BoolVar(&adr, "adr", false, "record the guidance as an architecture decision (docs/adr/NNNN-title.md); automatic when the run escalated on architecture")
	cmd.MarkFlagsMutuallyExclusive("guidance", "guidance-file")
	return cmd
}

func resume(cmd *cobra.Command, d Deps, f *runFlags, name, guidance string, adr bool) error {
	store, err := openStore(d, "")
	if err != nil {
		return err
	}
	prev, err := store.Load(name)
	if err != nil {
		if _, ok := errors.AsType[*state.CorruptError](err); ok {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%w; there is nothing to resume: start again with 'agentloop run %s'", err, name)}
		}
		if ne, ok := errors.AsType[*state.NewerError](err); ok {
			return &ExitError{Code: ExitFailure, Err: ne}
		}
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("no run named %q to resume in %s ('agentloop status' lists them): %w", name, store.Root, err)}
	}
	merged, mf, err := recordedRun(d, prev.Args, cmd)
	if err != nil {
		return err
	}
	mf.verbose, mf.quiet, mf.logFormat = f.verbose, f.quiet, f.logFormat
	f = mf
	p, err := resolvePlan(merged, d, f, prev.Procedure)
	if err != nil {
		return err
	}
	p.Name = name
	p.Args = givenFlags(merged)
	if prev.WorkDir != "" {
		p.WorkDir = prev.WorkDir // a task of a graph: its worktree
	}
	screen := newScreen(d, f, p)
	s, err := session.Open(process(d), p, screen, newLogger(d, f), false)
	if err != nil {
		return err
	}
	if err := s.Resume(guidance, adr); err != nil {
		return err
	}
	return runSession(cmd.Context(), s)
}
