//go:build unix

// Command peakrss runs a command and prints its wall time, its peak resident
// set size (the largest of the command and its descendants) and its CPU time
// (user and system, of the command and the descendants it waited for), for the
// benchmarks in bench/.
//
//	go run ./bench/peakrss -- agentloop run ...
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: peakrss -- COMMAND [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(2)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var kib int64
	if ru != nil {
		kib = ru.Maxrss // kilobytes on Linux
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	fmt.Fprintf(os.Stderr, "peakrss: exit %d, wall %.3fs, peak RSS %.1f MiB, cpu %.3fs\n", code, wall.Seconds(), float64(kib)/1024, cpu.Seconds())
	os.Exit(code)
}
