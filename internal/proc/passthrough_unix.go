//go:build unix

package proc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// Passthrough runs argv with this process's standard input, output and error
// and env (nil: this process's), in this process's own process group, and
// waits: for a program that only stands in front of another (agentloop's part
// inside a sandbox), so that signals to the group reach the program as if it
// ran alone. It returns the program's exit code, or the signal that killed it
// (code -1); the error is for a program that could not start.
func Passthrough(argv, env []string) (code int, sig syscall.Signal, err error) {
	if len(argv) == 0 || argv[0] == "" {
		return -1, 0, &StartError{Argv: argv, Err: errors.New("empty command line")}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = os.Stdin, os.Stdout, os.Stderr, env
	if err := cmd.Start(); err != nil {
		return -1, 0, &StartError{Argv: argv, Err: err}
	}
	_ = cmd.Wait() // how it ended is read from ProcessState
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal(), nil
	}
	return cmd.ProcessState.ExitCode(), 0, nil
}
