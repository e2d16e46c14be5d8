//go:build unix

package main

import (
	"syscall"
	"time"
)

func selfCPU() time.Duration  { return rusage(syscall.RUSAGE_SELF) }
func childCPU() time.Duration { return rusage(syscall.RUSAGE_CHILDREN) }
func rusage(who int) time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(who, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
