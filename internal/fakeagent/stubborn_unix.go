//go:build unix

package fakeagent

import (
	"io"
	"os"
	"syscall"
)

// termSignal is the signal agentloop ends an agent's process group with.
var termSignal os.Signal = syscall.SIGTERM

// stubbornChild is the argument of spawn-stubborn's child where it is the
// fake agent itself (Windows).
const stubbornChild = "--stubborn-child"

// spawnStubborn starts, in our process group, a shell that ignores SIGTERM and
// becomes a long sleep holding our stdout and stderr open (an ignored signal
// stays ignored across exec). It returns the child's pid.
func spawnStubborn(stdout, stderr io.Writer) (int, error) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	out, errf := fileOr(stdout, devnull), fileOr(stderr, devnull)
	p, err := os.StartProcess("/bin/sh", []string{"sh", "-c", `trap "" TERM; exec sleep 1000000`},
		&os.ProcAttr{Files: []*os.File{devnull, out, errf}})
	if err != nil {
		return 0, err
	}
	pid := p.Pid
	_ = p.Release()
	return pid, nil
}
