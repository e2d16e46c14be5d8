//go:build !unix

package gitx

import "os/exec"

// ownGroup is a no-op where process groups do not exist.
func ownGroup(*exec.Cmd) {}

// reapGroup is a no-op where process groups do not exist.
func reapGroup(*exec.Cmd) {}

// processAlive cannot tell here, so it keeps every file it is asked about.
func processAlive(int) bool { return true }
