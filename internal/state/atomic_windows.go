//go:build windows

package state

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// renameBusyFor is how long [renameOver] retries a rename that another
// process's open handle blocks.
const renameBusyFor = 2 * time.Second

// renameOver renames oldpath over newpath. os.Rename replaces newpath
// (MoveFileEx with MOVEFILE_REPLACE_EXISTING), but fails while a reader has
// it open without FILE_SHARE_DELETE (os.Open and os.ReadFile do): agentloop
// status or watch reading a run's state as the loop writes it. Such a
// reader lets go within milliseconds, so the rename is retried for a while.
func renameOver(oldpath, newpath string) error {
	deadline := time.Now().Add(renameBusyFor)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		err := os.Rename(oldpath, newpath)
		if err == nil || !renameBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(delay)
	}
}

// renameBusy reports whether a rename failed because a file is open.
func renameBusy(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION)
}

// syncDir does nothing: Windows cannot open a directory for a flush, and
// NTFS journals the rename itself.
func syncDir(string) error { return nil }
