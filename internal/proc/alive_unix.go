//go:build unix

package proc

import (
	"errors"
	"syscall"
)

// Alive reports whether a process with this pid exists on this host and is not a
// zombie (dead but not yet reaped).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) { // EPERM: it exists, it is not ours
		return false
	}
	return !zombie(pid)
}

// groupExists reports whether any process is in the process group pgid.
func groupExists(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Interrupt sends pid SIGINT, as Ctrl-C in its terminal does.
func Interrupt(pid int) error {
	if pid <= 0 {
		return errors.New("interrupt: no process")
	}
	return syscall.Kill(pid, syscall.SIGINT)
}
