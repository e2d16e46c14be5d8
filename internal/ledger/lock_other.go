//go:build !unix && !windows

package ledger

import (
	"errors"
	"os"
)

func lockFile(*os.File) error {
	return errors.New("the shared spend ledger needs flock (Linux, macOS, BSD)")
}

func unlockFile(*os.File) {}
