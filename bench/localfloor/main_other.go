//go:build !linux

// Command localfloor is Linux only: it reaps what the runs leave behind as
// their subreaper (prctl), to count its CPU.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "localfloor: Linux only (it counts the CPU of what runs leave behind as their subreaper)")
	os.Exit(2)
}
