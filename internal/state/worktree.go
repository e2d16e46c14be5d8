package state

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// A work tree has one writer: a loop rolls back to its best checkpoint, and
// that would wipe the changes of a second loop in the same files. Each run
// holds, beside its own lock, the lock of the work tree it works in.

// WorkTreeError is returned by [Store.LockWorkTree] when a live loop works in
// the work tree already.
type WorkTreeError struct {
	Dir   string // the work tree
	Owner string // what works there: run "build", task graph "tasks" ("" when its lock is not written yet)
	PID   int
	Host  string
	Since time.Time
	Path  string // the lock file
}

func (e *WorkTreeError) Error() string {
	who, stop := "another loop is starting there", "Wait for it or stop it"
	if e.PID != 0 {
		since := ""
		if !e.Since.IsZero() {
			since = ", since " + e.Since.Local().Format(time.DateTime)
		}
		who = fmt.Sprintf("%s (pid %d on %s%s)", e.Owner, e.PID, e.Host, since)
		stop = fmt.Sprintf("Wait for it or stop it (Ctrl-C in its terminal or `kill %d`)", e.PID)
	}
	return fmt.Sprintf("another loop works in %s: %s; two loops in one work tree undo each other's changes when one rolls back. "+
		"%s; to run both at once, run this one in a work tree of its own (`git worktree add ../NAME`, then run it there) "+
		"or both as tasks of a task graph (`agentloop run --tasks FILE`: each task has a worktree of its own). "+
		"--dry-run runs nothing and works beside it. If no loop is running, remove %s",
		e.Dir, who, stop, e.Path)
}

// LockWorkTree takes the work tree dir for owner, what works there (run
// "build", task graph "tasks"), as [Store.Lock] takes a run: a live loop
// already working there is a [*WorkTreeError]; a lock left by a dead process
// is taken over. The lock file is in lockDir, a folder every loop of the
// work tree finds whatever its state folder (the repository's git folder),
// else ("") in the state folder.
func (s Store) LockWorkTree(dir, lockDir, owner string) (*Lock, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("lock work tree %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if lockDir == "" {
		if err := s.EnsureRoot(); err != nil {
			return nil, err
		}
		lockDir = s.StateDir()
	}
	if err := EnsureDir(lockDir); err != nil {
		return nil, fmt.Errorf("lock work tree %s: %w", abs, err)
	}
	me, err := self()
	if err != nil {
		return nil, fmt.Errorf("lock work tree %s: %w", abs, err)
	}
	me.Owner = owner
	sum := sha256.Sum256([]byte(abs))
	path := filepath.Join(lockDir, "worktree-"+hex.EncodeToString(sum[:8])+".lock")
	l, err := lockPath(abs, "work tree "+abs, path, me)
	if le, ok := errors.AsType[*LockedError](err); ok {
		return nil, &WorkTreeError{Dir: abs, Owner: le.Owner, PID: le.PID, Host: le.Host, Since: le.Since, Path: le.Path}
	}
	return l, err
}
