//go:build !linux

package main

import (
	"fmt"
	"os"
)

// ptyRun is the scripts' ptyrun program; pseudo-terminals are opened on Linux
// only, and the scripts that use it run there.
func ptyRun() int {
	fmt.Fprintln(os.Stderr, "ptyrun: pseudo-terminals are supported on Linux only")
	return 1
}
