package proc

import "syscall"

// parentDeath makes the kernel send SIGKILL to the child when agentloop dies
// (Linux's parent-death signal): an agent killed with its worker stops at
// once, not after its iteration was run again elsewhere. The signal comes
// when the thread that started the child ends, which Go's runtime does only
// for a goroutine locked to its thread that returns without unlocking: this
// program has none. What the child started is ended by the watchdog
// ([Watchdog]).
func parentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
