package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
)

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

// loadRun reads a run's state, events (the last lastEvents of them; all for
// 0) and escalation report.
func loadRun(store *state.Store, name string, lastEvents int) (report.Run, error) {
	st, err := store.Load(name)
	if _, gap := errors.AsType[*state.HistoryGapError](err); gap {
		err = nil // reported with what the log holds
	}
	if errors.Is(err, state.ErrNotFound) {
		if r, ok, err := graph.LoadReport(store.Root, name); ok || err != nil {
			return r, err
		}
		return report.Run{}, fmt.Errorf("no run named %q in %s; 'agentloop status' lists them", name, store.Root)
	}
	if err != nil {
		return report.Run{}, fmt.Errorf("load run %s: %w", name, err)
	}
	r, err := report.LoadRunDirLast(store.RunDir(name, st.RunID), st, lastEvents)
	if err != nil {
		return report.Run{}, fmt.Errorf("load run %s: %w", name, err)
	}
	return r, nil
}
