package testenv

import (
	"fmt"
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
	return StartTemporal(t, NeedTool(t, "temporal"), filepath.Join(t.TempDir(), "temporal.db")).Addr
}

// TemporalDevServer is a dev server a test started ([StartTemporal]).
type TemporalDevServer struct {
	Addr    string // host:port
	bin, db string
	extra   []string
	cmd     *exec.Cmd
	exited  chan struct{} // closed once cmd is reaped
}

// StartTemporal starts the temporal CLI bin's dev server on a free port of
// 127.0.0.1, its state in the file db, with the more flags of start-dev
// extra, and returns once it listens; it is killed when the test ends, or
// when the test binary dies. A port is free when chosen, and another test's
// server can take it before this one binds it: the server then exits at once
// ("address already in use"), and is started again on another port.
func StartTemporal(t testing.TB, bin, db string, extra ...string) *TemporalDevServer {
	t.Helper()
	s := &TemporalDevServer{bin: bin, db: db, extra: extra}
	for try := 1; ; try++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s.Addr = l.Addr().String()
		l.Close()
		err = s.start(t)
		if err == nil {
			return s
		}
		if try == 5 {
			t.Fatal(err)
		}
		t.Logf("%v: starting it on another port", err)
	}
}

// Restart starts the killed server again on its address and its file.
func (s *TemporalDevServer) Restart(t testing.TB) {
	t.Helper()
	if err := s.start(t); err != nil {
		t.Fatal(err)
	}
}

// Kill kills the server with SIGKILL and reaps it.
func (s *TemporalDevServer) Kill() {
	if s.cmd != nil {
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// start starts the server on s.Addr and waits until it listens; an error
// says it exited before.
func (s *TemporalDevServer) start(t testing.TB) error {
	t.Helper()
	_, port, _ := net.SplitHostPort(s.Addr)
	cmd := exec.Command(s.bin, append(TemporalServerArgs(port, s.db), s.extra...)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	EndsWithTest(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the Temporal dev server: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	s.cmd, s.exited = cmd, exited
	t.Cleanup(s.Kill)
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.Addr, time.Second)
		if c != nil {
			c.Close()
		}
		select {
		case <-exited: // whatever answered there is not this server
			return fmt.Errorf("the Temporal dev server for %s exited before it listened (%v)", s.Addr, cmd.ProcessState)
		default:
			if err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Temporal dev server did not listen on %s: %v", s.Addr, err)
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
