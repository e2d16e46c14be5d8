package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/loop"
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
	s, err := open(d, p, screen, newLogger(d, f), false)
	if err != nil {
		return err
	}
	st := s.st
	switch st.Status {
	case loop.StatusSucceeded, loop.StatusCompleted:
		s.lock.Release()
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("run %s already %s (%s); start a new one with 'agentloop run %s'", name, st.Status, st.Reason, st.Procedure)}
	case loop.StatusEscalated:
		if guidance == "" {
			s.lock.Release()
			return usageError("run %s is waiting for your answer to its escalation (%s): read %s, then resume with --guidance \"...\"",
				name, st.Reason, relPath(p.WorkDir, filepath.Join(store.RunDir(name, st.RunID), "escalation.md")))
		}
	}
	if summary := previousSummary(st); summary != "" {
		screen.Linef("%s", summary)
	}
	if guidance != "" {
		adr = adr || architectural(st)
		loop.ApplyGuidance(st, loop.Guidance{Text: guidance, Architecture: adr})
		screen.Linef("Guidance recorded; the iteration counter starts again (spend so far is kept)")
		if adr {
			path, err := writeADR(p.WorkDir, st, guidance)
			if err != nil {
				screen.Warnf("record the decision: %v", err)
			} else {
				screen.Linef("Decision recorded in %s", relPath(p.WorkDir, path))
			}
		}
	}
	return s.run(cmd.Context())
}

// architectural reports whether the run escalated on an architectural question:
// the answer is then a decision worth an ADR.
func architectural(st *loop.State) bool {
	if len(st.History) == 0 {
		return false
	}
	return slices.Contains(st.History[len(st.History)-1].Triggers, "architecture")
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// writeADR records a human's architectural decision as docs/adr/NNNN-title.md.
func writeADR(workDir string, st *loop.State, guidance string) (string, error) {
	dir := filepath.Join(workDir, "docs", "adr")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	n := 1
	for _, e := range entries {
		var k int
		if _, err := fmt.Sscanf(e.Name(), "%04d-", &k); err == nil && k >= n {
			n = k + 1
		}
	}
	title := st.Reason
	if title == "" {
		title = "decision for " + st.Name
	}
	slug := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(slug) > 50 {
		slug = strings.Trim(slug[:50], "-")
	}
	path := filepath.Join(dir, fmt.Sprintf("%04d-%s.md", n, slug))
	body := fmt.Sprintf("# %d. %s\n\nStatus: accepted\n\n## Context\n\nagentloop run %s (%s) escalated after %d iterations: %s\n\n## Decision\n\n%s\n\n## Consequences\n\nThe loop continues with this decision in every prompt of the run.\n",
		n, title, st.Name, st.RunID, st.TotalIterations, st.Reason, guidance)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.WriteString(body)
	return path, err
}
