package proc

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// KeepAwake keeps the machine from sleeping (idle sleep) while this process
// runs, until stop is called: caffeinate, in a process group of its own so
// that the terminal's Ctrl-C leaves it to stop.
func KeepAwake() (stop func(), err error) {
	argv := caffeinateArgv(os.Getpid())
	cmd := exec.Command(argv[0], argv[1:]...)
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return func() {}, fmt.Errorf("keep the machine awake: %w", err)
	}
	return func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}, nil
}

// KeepAwakeCommand is the command [KeepAwake] runs here, for a person ("" when
// it is missing).
func KeepAwakeCommand() string {
	if _, err := os.Stat(caffeinate); err != nil {
		return ""
	}
	return strings.Join(caffeinateArgv(os.Getpid())[:3], " ") + " <agentloop's pid>"
}
