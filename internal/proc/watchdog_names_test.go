package proc

import "testing"

// TestShellWaits: the watchdog waits in a shell for agentloop's binary
// whatever it is called, and not for a Go test binary, which the shell's
// exec would start under its own name, running its test suite.
func TestShellWaits(t *testing.T) {
	t.Parallel()
	for exe, want := range map[string]bool{
		"/usr/local/bin/agentloop":          true,
		"/tmp/bins/agentloop-release":       true,
		`C:\tools\agentloop.exe`:            true,
		"/tmp/go-build1/b462/temporal.test": false,
		"/tmp/go-build1/b1/agentloop.test":  false,
		`C:\tmp\go-build1\b1\cli.test.exe`:  false,
	} {
		if got := shellWaits(exe); got != want {
			t.Errorf("shellWaits(%q) = %v, want %v", exe, got, want)
		}
	}
}
