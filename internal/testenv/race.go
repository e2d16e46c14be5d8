package testenv

import (
	"os"
	"strings"
)

// GORACE is the GORACE setting for a process a test starts from a binary built
// with -race (the test binary run again as agentloop, the fake agent or a
// helper). The race runtime sleeps a second at exit by default
// (atexit_sleep_ms=1000) to give other goroutines time to run into a race; a
// script that starts the binary a hundred times waits a hundred seconds for
// nothing. A race the process runs into is still reported, and still makes it
// exit 66; only goroutines still running after the process decided to exit go
// unwatched. The user's own GORACE comes after, so it wins.
func GORACE() string {
	return strings.TrimSpace("atexit_sleep_ms=0 " + os.Getenv("GORACE"))
}
