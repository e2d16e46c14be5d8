package state

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/testenv"
)

func TestLockWorkTree(t *testing.T) {
	t.Parallel()
	testenv.SkipUnderWine(t, "a symlink Wine makes does not resolve to its target's path (filepath.EvalSymlinks)")
	s := Store{Root: t.TempDir()}
	tree, other := t.TempDir(), t.TempDir()
	l, err := s.LockWorkTree(tree, "", `run "build"`)
	if err != nil {
		t.Fatal(err)
	}
	// The same work tree by another spelling of its path.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(tree, link); err != nil {
		t.Fatal(err)
	}
	_, err = s.LockWorkTree(link+"/.", "", `run "fix-tests"`)
	we, ok := errors.AsType[*WorkTreeError](err)
	if !ok {
		t.Fatalf("second LockWorkTree error = %v, want *WorkTreeError", err)
	}
	if we.Owner != `run "build"` || we.PID != os.Getpid() || we.Since.IsZero() {
		t.Errorf("WorkTreeError = %+v", we)
	}
	for _, want := range []string{`run "build" (pid `, "git worktree add", "agentloop run --tasks", "--dry-run", l.Path} {
		if !strings.Contains(we.Error(), want) {
			t.Errorf("message lacks %q:\n%s", want, we.Error())
		}
	}
	if o, err := s.LockWorkTree(other, "", `run "fix-tests"`); err != nil {
		t.Errorf("LockWorkTree of another work tree: %v", err)
	} else {
		_ = o.Release()
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	// A lock its dead owner left is taken over.
	host, _ := os.Hostname()
	data, _ := json.Marshal(LockInfo{PID: deadPID(t), Host: host, Owner: `run "build"`})
	if err := os.WriteFile(l.Path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	l2, err := s.LockWorkTree(tree, "", `run "fix-tests"`)
	if err != nil {
		t.Fatalf("LockWorkTree over a dead owner's lock: %v", err)
	}
	defer l2.Release()
	if l2.Recovered == nil || l2.Recovered.Owner != `run "build"` {
		t.Errorf("Recovered = %+v, want the dead build's", l2.Recovered)
	}
}
