package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

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
// 0) and escalation reports: the current run of the name, or with runID its
// run of that id, an earlier one too (its final state is in its run folder).
func loadRun(store *state.Store, name, runID string, lastEvents int) (report.Run, error) {
	st, err := store.Load(name)
	if _, gap := errors.AsType[*state.HistoryGapError](err); gap {
		err = nil // reported with what the log holds
	}
	if runID != "" && (err != nil || st.RunID != runID) {
		st, err = loadEarlierRun(store, name, runID)
		if err != nil {
			return report.Run{}, err
		}
	}
	if errors.Is(err, state.ErrNotFound) {
		if r, ok, err := report.LoadTaskGraph(store.Root, name); ok || err != nil {
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

// onlyRun is the run a command given no NAME means: the only run in the
// store that fits (for resume, one not yet over), else the only task graph
// (for report, graphs says so). With none, or several to choose from, it is
// an error that says what there is: a usage error listing the candidates.
func onlyRun(d Deps, store *state.Store, verb string, fits func(*state.State) bool, graphs bool) (string, error) {
	states, err := store.List()
	if err := skipCorrupt(d, err); err != nil {
		return "", fmt.Errorf("read runs in %s: %w", store.Root, err)
	}
	var names, rows []string
	for _, st := range states {
		if fits(st) {
			names = append(names, st.Name)
			rows = append(rows, fmt.Sprintf("  %s (%s)", st.Name, st.Status))
		}
	}
	if graphs {
		files, _ := filepath.Glob(graph.StatePath(store.Root, "*"))
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".json")
			names = append(names, name)
			rows = append(rows, fmt.Sprintf("  %s (task graph)", name))
		}
	}
	switch {
	case len(names) == 1:
		return names[0], nil
	case len(names) > 1:
		return "", usageError("name the run to %s: agentloop %s NAME, with one of:\n%s", verb, verb, strings.Join(rows, "\n"))
	case len(states) > 0:
		return "", fmt.Errorf("no run in %s to %s: every one is over ('agentloop status' lists them)", store.Root, verb)
	}
	return "", fmt.Errorf("no runs in %s to %s; start one with 'agentloop run'", store.Root, verb)
}

// relativePaths makes the paths a report names relative to the folder
// agentloop runs in, when they are inside it.
func relativePaths(d Deps, r *report.Run) {
	wd, err := d.Getwd()
	if err != nil {
		return
	}
	for i, e := range r.Escalations {
		if rel, err := filepath.Rel(wd, e.Path); err == nil && !strings.HasPrefix(rel, "..") {
			r.Escalations[i].Path = rel
		}
	}
}

// loadEarlierRun reads the final state of the run runID of the name from its
// run folder.
func loadEarlierRun(store *state.Store, name, runID string) (*state.State, error) {
	if err := state.ValidName(runID); err != nil {
		return nil, usageError("--run: %v", err)
	}
	ids, err := store.RunIDs(name)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(ids, runID) {
		if len(ids) == 0 {
			return nil, fmt.Errorf("no run named %q in %s; 'agentloop status' lists them", name, store.Root)
		}
		return nil, fmt.Errorf("%s has no run %s in %s; its runs: %s", name, runID, store.Root, strings.Join(ids, ", "))
	}
	st, err := state.LoadRun(store.RunDir(name, runID))
	if err != nil {
		return nil, fmt.Errorf("load run %s of %s: %w", runID, name, err)
	}
	return st, nil
}
