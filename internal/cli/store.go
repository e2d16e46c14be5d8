package cli

import (
	"github.com/agentloop/agentloop/internal/app"
)

// skipCorrupt reports unreadable state files (corrupt, or written by a newer
// agentloop) as warnings on d.Stderr, so one such file does not hide every
// other run; any other error is returned.
func skipCorrupt(d Deps, err error) error { return app.SkipUnreadable(d.Stderr, err) }

// stateDir finds the state folder ([app.StateDir]): the flag, else the
// configuration's state_dir, else .agentloop in the current folder.
func stateDir(d Deps, dir string) (string, error) {
	wd, err := d.Getwd()
	if err != nil {
		return "", err
	}
	return app.StateDir(wd, d.Getenv, dir), nil
}
