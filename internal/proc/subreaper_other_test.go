//go:build unix && !linux

package proc

// subreaper is the helper of a Linux-only test.
func subreaper() int { return 2 }

// strays is the Linux-only helper of TestRunContainsAsSubreaper.
func strays() int { return 2 }
