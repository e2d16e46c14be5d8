package cli

import (
	"path/filepath"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/state"
)

// skipCorrupt reports unreadable state files (corrupt, or written by a newer
// agentloop) as warnings on d.Stderr, so one such file does not hide every
// other run; any other error is returned.
func skipCorrupt(d Deps, err error) error { return app.SkipUnreadable(d.Stderr, err) }

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
