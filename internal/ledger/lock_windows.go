//go:build windows

package ledger

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockOffset is where the one byte the lock takes lies: past the ledger's
// content, which a byte-range lock would keep other processes from reading.
const lockOffset = 1 << 62

func lockRange() *windows.Overlapped {
	return &windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
}

// lockFile takes f's exclusive lock (LockFileEx), waiting for it: Windows
// releases it when its holder dies, so the wait ends.
func lockFile(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, lockRange())
}

func unlockFile(f *os.File) { _ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockRange()) }
