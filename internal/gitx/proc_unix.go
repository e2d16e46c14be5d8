//go:build unix

package gitx

import (
	"os/exec"
	"syscall"
)

// ownGroup starts git in its own process group and makes cancellation signal
// the whole group, so a hook or credential helper git started stops with it.
func ownGroup(x *exec.Cmd) {
	x.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	x.Cancel = func() error { return syscall.Kill(-x.Process.Pid, syscall.SIGTERM) }
}

// reapGroup kills what is left of the group after git exited.
func reapGroup(x *exec.Cmd) {
	if x.Process != nil {
		_ = syscall.Kill(-x.Process.Pid, syscall.SIGKILL)
	}
}

// processAlive reports whether a process with this id exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
