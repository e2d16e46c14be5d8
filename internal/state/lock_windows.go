//go:build windows

package state

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffset is where the one byte the lock takes lies: far past the lock
// file's content, since a byte-range lock on Windows keeps other processes
// from reading the bytes it covers (a competitor reads who owns the run).
const lockOffset = 1 << 62

// flock takes an exclusive, non-blocking lock (LockFileEx) on f; busy means
// another open file (in this or another process) holds it. Closing f, or the
// death of its process, releases it.
func flock(f *os.File) (busy bool, err error) {
	ol := windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
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

// openLock opens the lock file at path for reading and writing (created with
// O_CREATE|O_EXCL), shared for deletion too: [Lock.Release] removes it while
// it is open, as on Unix.
func openLock(path string, flag int, _ os.FileMode) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	disposition := uint32(windows.OPEN_EXISTING)
	if flag&os.O_CREATE != 0 {
		disposition = windows.CREATE_NEW
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		disposition, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
