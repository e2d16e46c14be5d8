//go:build !linux

package testenv

import "os/exec"

// EndsWithTest does nothing here: only Linux has a parent-death signal; the
// test's cleanup ends the process.
func EndsWithTest(*exec.Cmd) {}
