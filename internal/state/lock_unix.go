//go:build unix

package state

import (
	"errors"
	"os"
	"syscall"
)

// flock takes an exclusive, non-blocking flock on f; busy means another open
// file (in this or another process) holds it.
func flock(f *os.File) (busy bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// samefile reports whether f is still the file at path.
func samefile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// openLock opens the lock file at path (os.OpenFile).
func openLock(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}
