//go:build unix && !linux && !darwin

package proc

// StartTime returns "" on systems without /proc: the lock then relies on the pid
// and flock alone.
func StartTime(pid int) (string, error) { return "", nil }

func zombie(pid int) bool { return false }
