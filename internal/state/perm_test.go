package state

import (
	"os"
	"runtime"
)

// permIs reports whether fi has the mode bits want, where a system keeps
// them: Windows has none (its files have ACLs; every file reads 0666).
func permIs(fi os.FileInfo, want os.FileMode) bool {
	return runtime.GOOS == "windows" || fi.Mode().Perm() == want
}
