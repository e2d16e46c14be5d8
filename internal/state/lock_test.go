package state

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/proc"
)

// TestLockHelper is not a test: run with STATE_LOCK_HELPER=ROOT it takes the lock
// of run "demo" in ROOT, prints "locked" and holds it until stdin closes.
func TestLockHelper(t *testing.T) {
	t.Parallel()
	root := os.Getenv("STATE_LOCK_HELPER")
	if root == "" {
		t.Skip("helper process only")
	}
	l, err := Store{Root: root}.Lock("demo")
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	_ = l.Release()
}

func TestLockSameProcess(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	l, err := s.Lock("demo")
	if err != nil {
		t.Fatal(err)
	}
	if l.Recovered != nil {
		t.Errorf("fresh lock reports a recovered one: %+v", l.Recovered)
	}
	if fi, err := os.Stat(l.Path); err != nil || !permIs(fi, 0o600) {
		t.Errorf("lock file mode %v, %v", fi.Mode().Perm(), err)
	}
	_, err = s.Lock("demo")
	le, ok := errors.AsType[*LockedError](err)
	if !ok {
		t.Fatalf("second Lock error = %v, want *LockedError", err)
	}
	if le.PID != os.Getpid() || le.Name != "demo" || !strings.Contains(le.Error(), "another loop") {
		t.Errorf("LockedError = %+v (%v)", le, le)
	}
	if other, err := s.Lock("other"); err != nil {
		t.Errorf("Lock of another run: %v", err)
	} else {
		_ = other.Release()
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	l2, err := s.Lock("demo")
	if err != nil {
		t.Fatalf("Lock after Release: %v", err)
	}
	_ = l2.Release()
}

func TestLockOtherProcess(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelper$")
	cmd.Env = append(os.Environ(), "STATE_LOCK_HELPER="+root)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("helper said %q, %v", line, err)
	}
	s := Store{Root: root}
	_, err = s.Lock("demo")
	if le, ok := errors.AsType[*LockedError](err); !ok || le.PID != cmd.Process.Pid {
		t.Fatalf("Lock held by pid %d: error = %v", cmd.Process.Pid, err)
	}
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	l, err := s.Lock("demo")
	if err != nil {
		t.Fatalf("Lock after the helper released it: %v", err)
	}
	_ = l.Release()
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$") // this test binary, running no test
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// liveProcess starts a process that runs until the test ends (this test
// binary as the lock helper, holding a lock of a store of its own) and
// returns it.
func liveProcess(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelper$")
	cmd.Env = append(os.Environ(), "STATE_LOCK_HELPER="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

func TestLockStale(t *testing.T) {
	t.Parallel()
	host, _ := os.Hostname()
	selfStart, _ := proc.StartTime(os.Getpid())
	sleeper := liveProcess(t)
	sleeperStart, _ := proc.StartTime(sleeper.Process.Pid)
	tests := []struct {
		name      string
		info      LockInfo
		content   string // raw lock file content instead of info
		recovered bool
		locked    bool
	}{
		{name: "dead pid", info: LockInfo{PID: deadPID(t), Host: host}, recovered: true},
		{name: "reused pid", info: LockInfo{PID: os.Getpid(), Host: host, StartTime: selfStart + "0"}, recovered: selfStart != ""},
		{name: "live unflocked", info: LockInfo{PID: sleeper.Process.Pid, Host: host, StartTime: sleeperStart}, locked: true},
		{name: "other host", info: LockInfo{PID: deadPID(t), Host: host + "-elsewhere"}, locked: true},
		{name: "garbage", content: "{not json"},
		{name: "empty", content: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := Store{Root: t.TempDir()}
			if err := EnsureDir(s.StateDir()); err != nil {
				t.Fatal(err)
			}
			data := []byte(tt.content)
			if tt.content == "" && tt.info.PID != 0 {
				data, _ = json.Marshal(tt.info)
			}
			path := filepath.Join(s.StateDir(), "demo.lock")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := s.Lock("demo")
			if tt.locked {
				if le, ok := errors.AsType[*LockedError](err); !ok || le.PID != tt.info.PID {
					t.Fatalf("Lock error = %v, want LockedError for pid %d", err, tt.info.PID)
				}
				return
			}
			if err != nil {
				t.Fatalf("Lock: %v", err)
			}
			defer l.Release()
			if got := l.Recovered != nil && l.Recovered.PID == tt.info.PID; got != tt.recovered {
				t.Errorf("Recovered = %+v, want recovered pid %d: %v", l.Recovered, tt.info.PID, tt.recovered)
			}
			var now LockInfo
			if b, err := os.ReadFile(path); err != nil || json.Unmarshal(b, &now) != nil || now.PID != os.Getpid() {
				t.Errorf("lock file now %q (%v), want our pid", b, err)
			}
			if time.Since(now.StartedAt) > time.Minute {
				t.Errorf("started_at %v", now.StartedAt)
			}
		})
	}
}

func TestOwned(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	if s.Owned("run") {
		t.Fatal("owned without a lock file")
	}
	l, err := s.Lock("run")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Owned("run") {
		t.Error("not owned while this process holds the lock")
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if s.Owned("run") {
		t.Error("owned after release")
	}
}

func TestLockRemovesHalfWrittenStateFiles(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	if err := EnsureDir(s.StateDir()); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(s.StateDir(), ".build.json.tmp-123")
	other := filepath.Join(s.StateDir(), ".other.json.tmp-456")
	for _, p := range []string{mine, other} {
		if err := os.WriteFile(p, []byte("{half"), FilePerm); err != nil {
			t.Fatal(err)
		}
	}
	l, err := s.Lock("build")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, err := os.Stat(mine); !os.IsNotExist(err) {
		t.Errorf("the run's half-written state file is still there: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another run's temporary file was touched: %v", err)
	}
}

// SetChildren writes the process groups into the lock file, for whoever
// recovers the lock; on a nil or released lock it does nothing.
func TestLockSetChildren(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	l, err := s.Lock("demo")
	if err != nil {
		t.Fatal(err)
	}
	kids := []proc.Child{{PGID: 4242, StartTime: "123", Marker: "m-1"}}
	l.SetChildren(kids)
	read := func() LockInfo {
		t.Helper()
		data, err := os.ReadFile(l.Path)
		if err != nil {
			t.Fatal(err)
		}
		var info LockInfo
		if err := json.Unmarshal(data, &info); err != nil {
			t.Fatalf("lock file %q: %v", data, err)
		}
		return info
	}
	if got := read(); len(got.Children) != 1 || got.Children[0] != kids[0] || got.PID != os.Getpid() {
		t.Errorf("lock file holds %+v, want pid %d and children %+v", got, os.Getpid(), kids)
	}
	l.SetChildren(nil)
	if got := read(); len(got.Children) != 0 {
		t.Errorf("children after clearing: %+v", got.Children)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l.SetChildren(kids) // released: no file to write, no panic
	if _, err := os.Stat(l.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("SetChildren after Release left a lock file: %v", err)
	}
	var none *Lock
	none.SetChildren(kids)
}

// A lock file left by a dead process of this host is not an owner; one of
// another host cannot be checked from here, so it counts as live.
func TestOwnedByALockFile(t *testing.T) {
	t.Parallel()
	dead := deadPID(t)
	me, err := self()
	if err != nil {
		t.Fatal(err)
	}
	s := Store{Root: t.TempDir()}
	if err := EnsureDir(s.StateDir()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host string
		want bool
	}{{me.Host, false}, {"another-host.example", true}} {
		data, _ := json.Marshal(LockInfo{PID: dead, Host: tc.host, StartedAt: time.Now()})
		if err := os.WriteFile(filepath.Join(s.StateDir(), "run.lock"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if got := s.Owned("run"); got != tc.want {
			t.Errorf("lock of dead pid %d on host %q: Owned = %v, want %v", dead, tc.host, got, tc.want)
		}
	}
}
