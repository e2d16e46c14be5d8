//go:build !linux

package main

import (
	"fmt"
	"os"
)

// main says what the benchmark needs: it reads agentloop's counters from
// /proc/PID (io, stat) and waits for its exit with waitid, which only Linux
// gives.
func main() {
	fmt.Fprintln(os.Stderr, "bench/flat measures agentloop through /proc: run it on Linux")
	os.Exit(2)
}
