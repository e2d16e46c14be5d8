package proc

import (
	"errors"
	"strconv"
)

// ErrNoKeepAwake is the error of [KeepAwake] on a system agentloop cannot keep
// awake (all but macOS).
var ErrNoKeepAwake = errors.New("nothing here keeps the machine awake (only macOS's caffeinate)")

// caffeinate is macOS's command that holds a power assertion for a process.
const caffeinate = "/usr/bin/caffeinate"

// caffeinateArgv keeps a Mac from sleeping while the process pid lives: -i
// holds an assertion against idle sleep, and -w ends it with pid, so it
// cannot outlive agentloop, whatever kills it.
func caffeinateArgv(pid int) []string {
	return []string{caffeinate, "-i", "-w", strconv.Itoa(pid)}
}
