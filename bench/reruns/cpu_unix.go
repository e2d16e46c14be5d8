//go:build unix

package main

import (
	"syscall"
	"time"
)

// childCPU is the CPU time (user and system) of every process this one
// started and waited for, and theirs: a step's is less at the mercy of a
// shared machine's load than its wall time. A gate's parser runs in this
// process and is not in it.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
