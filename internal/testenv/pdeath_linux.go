package testenv

import (
	"os/exec"
	"syscall"
)

// EndsWithTest makes cmd, not yet started, end when the test binary dies,
// however it dies: a test binary killed by its -timeout or a SIGKILL runs no
// cleanup, and a server it started would otherwise run on for good.
func EndsWithTest(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
