package testenv

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TemporalServer starts the Temporal CLI's dev server (temporal server
// start-dev) on a free port of 127.0.0.1, its state in a file of the test's
// temporary folder, and returns its address once it accepts connections. The
// server is killed when the test ends, or when the test binary dies. Without
// the temporal CLI the test is skipped (failed under CI=true).
func TemporalServer(t testing.TB) string {
	t.Helper()
	bin := NeedTool(t, "temporal")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, TemporalServerArgs(port, filepath.Join(t.TempDir(), "temporal.db"))...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	EndsWithTest(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the Temporal dev server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Temporal dev server did not listen on %s: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond) // a process that gives no readiness event
	}
}

// TemporalServerArgs are the temporal CLI's arguments that start a test's dev
// server on port of 127.0.0.1, its state in the file db. SQLite writes ahead
// and never syncs: the tests kill the server, never its machine, and a sync
// on a disk shared with builds makes each write wait for them (the server
// writes through one connection: under load it timed out its own calls).
func TemporalServerArgs(port, db string) []string {
	return []string{"server", "start-dev", "--ip", "127.0.0.1", "--port", port, "--headless",
		"--db-filename", db, "--sqlite-pragma", "journal_mode=wal", "--sqlite-pragma", "synchronous=off",
		"--log-level", "error"}
}
