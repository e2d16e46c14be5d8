//go:build unix && !linux

package proc

import "syscall"

// parentDeath does nothing here: only Linux has a parent-death signal; the
// watchdog ([Watchdog]) ends what agentloop's death leaves.
func parentDeath(*syscall.SysProcAttr) {}
