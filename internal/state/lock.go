package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/runname"
)

// LockInfo identifies the process that owns a run.
type LockInfo struct {
	PID       int       `json:"pid"`
	Host      string    `json:"host"`
	StartTime string    `json:"start_time,omitempty"` // proc.StartTime: tells a reused pid apart
	StartedAt time.Time `json:"started_at"`
	// Owner is what the owner works on, in a work tree's lock (see
	// [Store.LockWorkTree]): run "build", task graph "tasks".
	Owner string `json:"owner,omitempty"`
	// Children are the process groups the owner has running (agent, gates,
	// reviewer): whoever recovers the lock of an owner that died ends them
	// before anything runs beside them.
	Children []proc.Child `json:"children,omitempty"`
}

// Lock is the ownership of one run, held (flock) until [Lock.Release].
type Lock struct {
	Path string
	Info LockInfo
	// Recovered is the stale lock this one replaced (its process was dead), or nil;
	// the caller warns "recovered stale lock of pid N".
	Recovered *LockInfo
	// Orphans are the process groups of Recovered's owner that were still
	// running and have been ended (SIGTERM, then SIGKILL after the grace).
	Orphans []proc.Child
	// Swept is how many processes carrying the dead owner's marker were left
	// after that and killed.
	Swept int
	f     *os.File
}

// LockedError is returned by [Store.Lock] when a live process owns the run.
type LockedError struct {
	Name  string
	PID   int
	Host  string
	Since time.Time
	Path  string
	// Owner is what the owner works on, as a work tree's lock file says
	// ("" in a run's own lock).
	Owner string
}

func (e *LockedError) Error() string {
	if e.PID == 0 { // the owner has not written its lock file yet
		return fmt.Sprintf("another loop is starting run %q; wait for it or stop it, or remove %s if none is running", e.Name, e.Path)
	}
	since := ""
	if !e.Since.IsZero() {
		since = ", since " + e.Since.Local().Format(time.DateTime)
	}
	return fmt.Sprintf("another loop owns run %q (pid %d on %s%s); stop it with Ctrl-C in its terminal or `kill %d`, "+
		"or if that process is gone, remove %s", e.Name, e.PID, e.Host, since, e.PID, e.Path)
}

// Lock takes the run called name for this process. A lock held by a live process
// is a [*LockedError]; one left by a dead process (or a pid since reused) is taken
// over and reported in [Lock.Recovered].
func (s Store) Lock(name string) (*Lock, error) {
	if err := runname.Check(name); err != nil {
		return nil, fmt.Errorf("lock run: %w", err)
	}
	if err := s.EnsureRoot(); err != nil {
		return nil, err
	}
	if err := EnsureDir(s.StateDir()); err != nil {
		return nil, fmt.Errorf("lock run %s: %w", name, err)
	}
	path := filepath.Join(s.StateDir(), name+".lock")
	me, err := self()
	if err != nil {
		return nil, fmt.Errorf("lock run %s: %w", name, err)
	}
	l, err := lockPath(name, "run "+name, path, me)
	if err == nil {
		s.removeTemps(name)
	}
	return l, err
}

// lockPath takes the lock file at path for me: the lock of name, which what
// names in errors ("run build").
func lockPath(name, what, path string, me LockInfo) (*Lock, error) {
	for range 5 { // retry only when the file changed under us
		l, err := tryLock(name, what, path, me)
		if errors.Is(err, errRetry) {
			continue
		}
		return l, err
	}
	return nil, fmt.Errorf("lock %s: %s keeps changing; retry", what, path)
}

var errRetry = errors.New("lock file changed")

// removeTemps removes the half-written state files a killed process left
// ([WriteFileAtomic]'s temporaries): with the run's lock held, no other process
// is writing one.
func (s Store) removeTemps(name string) {
	temps, _ := filepath.Glob(filepath.Join(s.StateDir(), "."+name+".json.tmp-*"))
	for _, t := range temps {
		_ = os.Remove(t)
	}
}

func tryLock(name, what, path string, me LockInfo) (*Lock, error) {
	f, err := openLock(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, FilePerm)
	created := err == nil
	if errors.Is(err, fs.ErrExist) {
		f, err = openLock(path, os.O_RDWR, 0)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errRetry // released meanwhile
		}
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", what, err)
	}
	l := &Lock{Path: path, Info: me, f: f}
	busy, err := flock(f)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock %s: %w", what, err)
	}
	if busy {
		old, _ := readInfo(f)
		_ = f.Close()
		return nil, &LockedError{Name: name, PID: old.PID, Host: old.Host, Since: old.StartedAt, Path: path, Owner: old.Owner}
	}
	if !samefile(f, path) { // removed or replaced between open and flock
		_ = f.Close()
		return nil, errRetry
	}
	if !created {
		old, err := readInfo(f)
		if err == nil && (old.Host != me.Host || sameProcess(old)) {
			_ = f.Close()
			return nil, &LockedError{Name: name, PID: old.PID, Host: old.Host, Since: old.StartedAt, Path: path, Owner: old.Owner}
		}
		if err == nil { // an unreadable lock file (crash while writing it) is taken silently
			l.Recovered = &old
			// Nothing of the dead owner may go on editing the tree beside us:
			// the groups its lock names, then whatever carries its marker (a
			// child started in the moment before the lock named it).
			l.Orphans = proc.EndOrphans(old.Children, proc.DefaultGrace)
			if old.Host == me.Host && !proc.Alive(old.PID) {
				l.Swept = proc.SweepOrphansOf(old.PID)
			}
		}
	}
	if err := l.write(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock %s: %w", what, err)
	}
	return l, nil
}

// sameProcess reports whether the process a lock names is still the one running.
func sameProcess(info LockInfo) bool {
	if !proc.Alive(info.PID) {
		return false
	}
	st, err := proc.StartTime(info.PID)
	return err != nil || info.StartTime == "" || st == "" || st == info.StartTime
}

func self() (LockInfo, error) {
	host, err := os.Hostname()
	if err != nil {
		return LockInfo{}, fmt.Errorf("read host name: %w", err)
	}
	st, _ := proc.StartTime(os.Getpid()) // "" where unknown: pid and flock still hold
	return LockInfo{PID: os.Getpid(), Host: host, StartTime: st, StartedAt: time.Now().UTC()}, nil
}

func readInfo(f *os.File) (LockInfo, error) {
	var info LockInfo
	data, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<16))
	if err != nil {
		return info, err
	}
	return info, json.Unmarshal(data, &info)
}

// write writes the lock's information over the file, not synced. The
// information serves whoever finds the lock after this process died on a
// machine that kept running: its page cache holds it (the flock, not the
// file, is what excludes a second owner). After a machine's crash every
// owner is dead and nothing of the lock is worth a sync: the file's name is
// not durable either (its folder is not synced), and a lock file cut short or
// empty is taken silently (TestLockStale), as a missing one is taken; what
// a sync bought was the "recovered the stale lock" warning after a power
// loss, at a disk flush each run and each work tree lock.
func (l *Lock) write() error {
	data, err := json.Marshal(l.Info)
	if err != nil {
		return err
	}
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err = l.f.WriteAt(append(data, '\n'), 0)
	return err
}

// SetChildren records the process groups the owner has running, for whoever
// recovers the lock if this process dies (see [proc.Groups.Sub]). It is best
// effort: a lock file that cannot be written leaves the old list.
func (l *Lock) SetChildren(children []proc.Child) {
	if l == nil || l.f == nil {
		return
	}
	l.Info.Children = children
	_ = l.write()
}

// Release gives the run up: it removes the lock file, then drops the flock.
// Releasing twice is a no-op.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	rerr := os.Remove(l.Path)
	cerr := l.f.Close() // closing drops the flock
	l.f = nil
	if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		return fmt.Errorf("release lock: %w", rerr)
	}
	if cerr != nil {
		return fmt.Errorf("release lock: %w", cerr)
	}
	return nil
}

// Owned reports whether a live process owns the run called name, without taking
// its lock: the lock file is flocked by a process of this host that is still the
// one that wrote it. A status of running with no owner is a run whose process died.
func (s Store) Owned(name string) bool {
	_, ok := s.Owner(name)
	return ok
}

// Owner is the live process that owns the run called name, as its lock file
// tells (see [Store.Owned]); false when none does. A lock of another host is
// taken for live: it cannot be checked from here.
func (s Store) Owner(name string) (LockInfo, bool) {
	path := filepath.Join(s.StateDir(), name+".lock")
	f, err := os.Open(path)
	if err != nil {
		return LockInfo{}, false
	}
	defer f.Close()
	info, err := readInfo(f)
	if err != nil {
		return LockInfo{}, false
	}
	me, err := self()
	if err != nil || info.Host != me.Host {
		return info, true
	}
	return info, sameProcess(info)
}
