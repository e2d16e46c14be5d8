package app

import (
	"path/filepath"
	"slices"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
)

// StateDir is the state folder of the runs, absolute: dir (--state-dir),
// else the configuration's state_dir (AGENTLOOP_STATE_DIR included), else
// .agentloop in wd, the working directory.
func StateDir(wd string, getenv func(string) string, dir string) string {
	if dir == "" {
		// A configuration that does not load must not hide the runs.
		if cfg, err := config.Load(config.Options{WorkDir: wd, Getenv: getenv}); err == nil {
			dir = cfg.StateDir
		} else {
			dir = getenv("AGENTLOOP_STATE_DIR")
		}
	}
	if dir == "" {
		dir = ".agentloop"
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(wd, dir)
	}
	return dir
}

// RunIDs are the runs of the name in the state folder, newest first; none
// when it cannot be read.
func RunIDs(stateDir, name string) []string {
	ids, _ := (&state.Store{Root: stateDir}).RunIDs(name)
	slices.Reverse(ids)
	return ids
}

// RunNames are the names of the readable runs in the state folder, sorted.
func RunNames(stateDir string) []string {
	states, _ := (&state.Store{Root: stateDir}).List() // what is readable
	var names []string
	for _, s := range states {
		if s != nil {
			names = append(names, s.Name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// LoadRunAt is the run of the name in the state folder, for a report: its
// last run ([LoadRun]).
func LoadRunAt(stateDir, name string) (report.Run, error) {
	return LoadRun(&state.Store{Root: stateDir}, name, "", 0)
}
