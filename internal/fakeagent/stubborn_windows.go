//go:build windows

package fakeagent

import (
	"io"
	"os"
	"strings"
)

// termSignal is what agentloop asks an agent to stop with on Windows:
// CTRL_BREAK_EVENT to its console process group, which Go delivers as
// os.Interrupt.
var termSignal os.Signal = os.Interrupt

// stubbornChild is the argument that makes the fake agent spawn-stubborn's
// child: it survives Ctrl-Break and sleeps forever.
const stubbornChild = "--stubborn-child"

// spawnStubborn starts the fake agent itself as a child that ignores
// Ctrl-Break (agentloop's polite stop) and sleeps forever holding our stdout
// and stderr open, without the plan (it counts no call). It returns the
// child's pid.
func spawnStubborn(stdout, stderr io.Writer) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FAKEAGENT_PLAN=") {
			env = append(env, kv)
		}
	}
	out, errf := fileOr(stdout, devnull), fileOr(stderr, devnull)
	p, err := os.StartProcess(exe, []string{os.Args[0], stubbornChild},
		&os.ProcAttr{Env: env, Files: []*os.File{devnull, out, errf}})
	if err != nil {
		return 0, err
	}
	pid := p.Pid
	_ = p.Release()
	return pid, nil
}
