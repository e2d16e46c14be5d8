package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/ledger"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/runname"
	"github.com/agentloop/agentloop/internal/state"
)

// SkipUnreadable reports unreadable state files (corrupt, or written by a
// newer agentloop) to w as warnings, so one such file does not hide every
// other run; any other error is returned.
func SkipUnreadable(w io.Writer, err error) error {
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
			fmt.Fprintf(w, "agentloop: warning: %v; it is left out (the next run of it moves it aside)\n", ce)
			continue
		}
		if ne, ok := errors.AsType[*state.NewerError](e); ok {
			fmt.Fprintf(w, "agentloop: warning: %v; it is left out\n", ne)
			continue
		}
		rest = append(rest, e)
	}
	return errors.Join(rest...)
}

func (l *Local) skipUnreadable(err error) error { return SkipUnreadable(l.sh.Stderr, err) }

// Status is a row per run of the state folder (those named name, when not
// ""), each as it stands ([AsItStands]) with the guidance queued for it;
// with runID, the run of that id of name as its last session left it.
func (l *Local) Status(_ context.Context, name, runID string) ([]report.StatusRow, string, error) {
	store := l.store()
	if runID != "" {
		st, err := l.runOf(store, name, runID)
		if err != nil {
			return nil, "", err
		}
		return report.StatusRows([]*state.State{st}, l.sh.Now()), "", nil
	}
	states, err := store.List()
	if err := l.skipUnreadable(err); err != nil {
		return nil, "", fmt.Errorf("read runs in %s: %w", store.Root, err)
	}
	if name != "" {
		states = slices.DeleteFunc(states, func(s *state.State) bool { return s.Name != name })
		if len(states) == 0 {
			return nil, "", fmt.Errorf("no run named %q in %s; 'agentloop status' lists them", name, store.Root)
		}
	}
	for _, st := range states {
		AsItStands(store, st)
	}
	for _, st := range states {
		if st.Steer != "" {
			_ = store.LoadHistory(st) // its guidance hand-offs, acknowledged below the table
		}
	}
	rows := report.StatusRows(states, l.sh.Now())
	for i := range rows {
		if q, err := store.Queued(rows[i].Name, rows[i].RunID, 0); err == nil {
			rows[i].Queued = len(q.Guidance)
		}
	}
	return rows, fmt.Sprintf("No runs in %s yet. Start one with 'agentloop run'.", store.Root), nil
}

// runOf is the run runID of name as its last session left it (the current
// run of name as it stands).
func (l *Local) runOf(store *state.Store, name, runID string) (*state.State, error) {
	st, err := store.Load(name)
	if _, gap := errors.AsType[*state.HistoryGapError](err); gap {
		err = nil
	}
	if err != nil || st.RunID != runID {
		return loadEarlierRun(store, name, runID)
	}
	AsItStands(store, st)
	return st, nil
}

// Report is the report of the run or task graph name of the state folder
// ("": the only one there is), its paths relative to the working directory.
func (l *Local) Report(_ context.Context, name, runID string, lastEvents int) (report.Run, error) {
	store := l.store()
	if name == "" {
		var err error
		if name, err = l.onlyRun(store, "report", func(*state.State) bool { return true }, true); err != nil {
			return report.Run{}, err
		}
	}
	r, err := LoadRun(store, name, runID, lastEvents)
	if err != nil {
		return report.Run{}, err
	}
	if wd, err := l.sh.Getwd(); err == nil {
		for i, e := range r.Escalations {
			if rel, err := filepath.Rel(wd, e.Path); err == nil && !strings.HasPrefix(rel, "..") {
				r.Escalations[i].Path = rel
			}
		}
	}
	return r, nil
}

// LoadRun reads a run's state, events (the last lastEvents of them; all for
// 0) and escalation reports: the current run of the name, or with runID its
// run of that id (an earlier one from its run folder); else the task graph
// of the name.
func LoadRun(store *state.Store, name, runID string, lastEvents int) (report.Run, error) {
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
		if r, ok, err := loadTaskGraph(store.Root, name); ok || err != nil {
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
func (l *Local) onlyRun(store *state.Store, verb string, fits func(*state.State) bool, graphs bool) (string, error) {
	states, err := store.List()
	if err := l.skipUnreadable(err); err != nil {
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
		return "", &UsageError{Err: fmt.Errorf("name the run to %s: agentloop %s NAME, with one of:\n%s", verb, verb, strings.Join(rows, "\n"))}
	case len(states) > 0:
		return "", fmt.Errorf("no run in %s to %s: every one is over ('agentloop status' lists them)", store.Root, verb)
	}
	return "", fmt.Errorf("no runs in %s to %s; start one with 'agentloop run'", store.Root, verb)
}

// loadEarlierRun reads the final state of the run runID of the name from its
// run folder.
func loadEarlierRun(store *state.Store, name, runID string) (*state.State, error) {
	if err := runname.Check(runID); err != nil {
		return nil, &UsageError{Err: fmt.Errorf("--run: %w", err)}
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

// openLedger opens the ledger of the configuration's budgets.
func (l *Local) openLedger(b config.Budgets) (*ledger.Ledger, error) {
	path := b.LedgerPath(l.sh.Getenv)
	if path == "" {
		return nil, &UsageError{Err: errors.New("the spend ledger has no place: set HOME or XDG_STATE_HOME, or budgets.ledger in your configuration")}
	}
	led, err := ledger.Open(path, nil)
	if err != nil {
		return nil, err
	}
	led.Now = l.sh.Now
	return led, nil
}

// absent reports whether there is no file at path.
func absent(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}
