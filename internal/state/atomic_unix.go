//go:build !windows

package state

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// renameOver renames oldpath over newpath (os.Rename, atomic on Unix even
// while newpath is open).
func renameOver(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// syncDir makes a rename in dir durable. File systems that cannot sync a
// directory are not an error.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
