//go:build unix

package ledger

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes f's exclusive flock, waiting for it: the kernel releases it
// when its holder dies, so the wait ends.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
