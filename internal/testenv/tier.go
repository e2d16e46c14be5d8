package testenv

import (
	"fmt"
	"os"
)

// SayTier tells the person running the tests whether a tier of tests that
// needs installs (the real agent CLIs, a Temporal server) runs in this test
// binary, and if not why and how to run it: one line, before the tests start.
// `go test ./...` shows a passing package's output only with -v, so the line
// goes to the terminal (/dev/tty) when there is one, and to stderr otherwise.
func SayTier(tier string, runs bool, why string) {
	line := "tier " + tier + ": runs"
	if !runs {
		line = "tier " + tier + ": skipped"
	}
	if why != "" {
		line += " (" + why + ")"
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		fmt.Fprintln(tty, line)
		tty.Close()
		return
	}
	fmt.Fprintln(os.Stderr, line)
}
