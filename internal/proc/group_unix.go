//go:build unix

package proc

import (
	"os"
	"os/exec"
	"syscall"
)

// setGroup makes the child the leader of a new process group, so that a signal
// to the group reaches its children too and the terminal's Ctrl-C reaches only
// us; where the system has one, the child gets SIGKILL when agentloop dies
// (parentDeath), so that no agent or gate outlives it.
func setGroup(cmd *exec.Cmd) {
	ownGroup(cmd)
	parentDeath(cmd.SysProcAttr)
}

// ownGroup makes the child the leader of a new process group.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// commandLine is argv as this system runs it: as it is.
func commandLine(argv []string) ([]string, error) { return argv, nil }

// startCmd starts cmd: its process group is made as it starts.
func startCmd(cmd *exec.Cmd) error { return cmd.Start() }

// detachAttr starts a [Detach]ed process in a session of its own.
func detachAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// termGroup sends SIGTERM to the process group led by pid.
func termGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGTERM) }

// killGroup sends SIGKILL to the process group led by pid. The group id stays
// reserved while any member lives, so this never hits an unrelated process.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

// exitStatus decodes how the process ended.
func exitStatus(ps *os.ProcessState) (code int, signal string) {
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, signalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGILL:
		return "SIGILL"
	case syscall.SIGTRAP:
		return "SIGTRAP"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGBUS:
		return "SIGBUS"
	case syscall.SIGFPE:
		return "SIGFPE"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGUSR2:
		return "SIGUSR2"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGALRM:
		return "SIGALRM"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGXCPU:
		return "SIGXCPU"
	}
	return "signal " + s.String()
}
