package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/session"
	"github.com/agentloop/agentloop/internal/state"
)

func newStatusCmd(d Deps) *cobra.Command {
	var asJSON bool
	var stateDir string
	cmd := &cobra.Command{
		Use:   "status [NAME]",
		Short: "Show every run: state, iteration, last decision, spend, elapsed",
		Args:  usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := openStore(d, stateDir)
			if err != nil {
				return err
			}
			states, err := store.List()
			if err := skipCorrupt(d, err); err != nil {
				return fmt.Errorf("read runs in %s: %w", store.Root, err)
			}
			if len(args) == 1 {
				var one []*loop.State
				for _, s := range states {
					if s.Name == args[0] {
						one = append(one, s)
					}
				}
				if len(one) == 0 {
					return &ExitError{Code: ExitFailure, Err: fmt.Errorf("no run named %q in %s; 'agentloop status' lists them", args[0], store.Root)}
				}
				states = one
			}
			for _, st := range states {
				if st.Status == loop.StatusRunning && !store.Owned(st.Name) {
					// Shown, not saved: the next run or resume recovers it.
					st.Status = loop.StatusInterrupted
					st.Reason = "its process is gone; continue with: agentloop resume " + st.Name
				}
			}
			rows := report.StatusRows(states, d.Now())
			if asJSON {
				return report.StatusJSON(d.Stdout, rows)
			}
			if len(rows) == 0 {
				fmt.Fprintf(d.Stdout, "No runs in %s yet. Start one with 'agentloop run'.\n", store.Root)
				return nil
			}
			return report.StatusTable(d.Stdout, rows, d.IsTerminal(d.Stdout))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&stateDir, "state-dir", "", "state folder (default .agentloop, or state_dir from the configuration)")
	return cmd
}

func newReportCmd(d Deps) *cobra.Command {
	var format, out, stateDir string
	cmd := &cobra.Command{
		Use:   "report NAME",
		Short: "History, escalation report and charts of a run (md, html or json)",
		Example: `  agentloop report build                      # Markdown to stdout
  agentloop report build --format html -o report.html`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := openStore(d, stateDir)
			if err != nil {
				return err
			}
			r, err := loadRun(store, args[0])
			if err != nil {
				return err
			}
			w := d.Stdout
			if out != "" && out != "-" {
				f, err := os.OpenFile(out, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
				if err != nil {
					return fmt.Errorf("create report: %w", err)
				}
				defer f.Close()
				w = f
			}
			switch format {
			case "md", "markdown":
				err = report.Markdown(w, r)
			case "html":
				err = report.HTML(w, r)
			case "json":
				err = report.JSON(w, r)
			default:
				return usageError("--format %q: want md, html or json", format)
			}
			if err != nil {
				return fmt.Errorf("write the %s report: %w", format, err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "md", "md, html or json")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of stdout")
	cmd.Flags().StringVar(&stateDir, "state-dir", "", "state folder (default .agentloop)")
	return cmd
}

// skipCorrupt reports unreadable state files (corrupt, or written by a newer
// agentloop) as warnings, so one such file does not hide every other run; any
// other error is returned.
func skipCorrupt(d Deps, err error) error {
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	var rest []error
	for _, e := range errs {
		if ce, ok := errors.AsType[*state.CorruptError](e); ok {
			fmt.Fprintf(d.Stderr, "agentloop: warning: %v; it is left out (the next run of it moves it aside)\n", ce)
			continue
		}
		if ne, ok := errors.AsType[*state.NewerError](e); ok {
			fmt.Fprintf(d.Stderr, "agentloop: warning: %v; it is left out\n", ne)
			continue
		}
		rest = append(rest, e)
	}
	return errors.Join(rest...)
}

// openStore finds the state folder: the flag, else the configuration's
// state_dir, else .agentloop in the current folder.
func openStore(d Deps, dir string) (*state.Store, error) {
	wd, err := d.Getwd()
	if err != nil {
		return nil, err
	}
	if dir == "" {
		// state_dir from the configuration tiers (AGENTLOOP_STATE_DIR included);
		// a configuration that does not load must not hide the runs.
		if cfg, err := config.Load(config.Options{WorkDir: wd, Getenv: d.Getenv}); err == nil {
			dir = cfg.StateDir
		} else {
			dir = d.Getenv("AGENTLOOP_STATE_DIR")
		}
	}
	if dir == "" {
		dir = ".agentloop"
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(wd, dir)
	}
	return &state.Store{Root: dir}, nil
}

// loadRun reads a run's state, events and escalation report.
func loadRun(store *state.Store, name string) (report.Run, error) {
	st, err := store.Load(name)
	if errors.Is(err, state.ErrNotFound) {
		if r, ok, err := session.LoadGraphReport(store.Root, name); ok || err != nil {
			return r, err
		}
		return report.Run{}, &ExitError{Code: ExitFailure, Err: fmt.Errorf("no run named %q in %s; 'agentloop status' lists them", name, store.Root)}
	}
	if err != nil {
		return report.Run{}, fmt.Errorf("load run %s: %w", name, err)
	}
	r, err := report.LoadRunDir(store.RunDir(name, st.RunID), st)
	if err != nil {
		return report.Run{}, fmt.Errorf("load run %s: %w", name, err)
	}
	return r, nil
}
