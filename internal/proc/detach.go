package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Detached is a process [Detach] started.
type Detached struct {
	PID int
	cmd *exec.Cmd
	log *os.File
}

// Detach starts argv in dir with the environment env, in a session of its
// own, its output appended to the file logPath (0600, its folder made 0700):
// a program that goes on by itself when the one that started it ends (a run
// resumed from `agentloop watch`). It is the one exception to "no child
// outlives agentloop": no parent-death signal, no watchdog, no terminal.
// [Detached.Wait] must be called, once, to reap it while its starter lives.
func Detach(argv []string, dir string, env []string, logPath string) (*Detached, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("detach: no command")
	}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		return nil, fmt.Errorf("detach %s: %w", argv[0], err)
	}
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("detach %s: %w", argv[0], err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = log, log // Stdin: /dev/null
	cmd.SysProcAttr = detachAttr()
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, &StartError{Argv: argv, Err: err}
	}
	return &Detached{PID: cmd.Process.Pid, cmd: cmd, log: log}, nil
}

// Wait waits for the process to end and says how it ended: its exit code, or
// -1 and the signal that ended it.
func (d *Detached) Wait() (code int, signal string) {
	_ = d.cmd.Wait()
	d.log.Close()
	return exitStatus(d.cmd.ProcessState)
}
