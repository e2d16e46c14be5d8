package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"
)

// Groups records the process groups that [Run] has started and not yet ended, so
// that a program can end all of its children at once: on a second Ctrl-C it calls
// [Groups.KillAll] and exits without waiting for any grace period. A program makes
// one Groups, hands it to every Run through the context ([WithGroups]) and keeps
// it; Run called with a context that carries none registers nothing. The zero
// value is ready to use.
//
// A part of the program (one run's session) takes a [Groups.Sub] of it, which
// also tells its owner every change, so that the run's lock file can name the
// groups that would be left behind if the program died.
type Groups struct {
	// NoCgroup keeps the runs out of cgroups of their own even where the
	// system gives them (set on the program's Groups, before any start): what
	// leaves a run's group and drops its marker is then found as an orphan
	// (see [Containment]).
	NoCgroup bool
	// Watchdog is agentloop's binary, run as the watchdog of this program
	// ([Watchdog]) from the first start on: when the program dies, what its
	// runs left is ended. "" for none (a test binary that is not agentloop).
	Watchdog string
	// noSweep keeps KillAll from sweeping /proc for markers and strays: the
	// path of a system without /proc (macOS), where the group SIGKILL is all
	// there is (tests).
	noSweep bool

	root     *Groups // the program's Groups, for a Sub; nil for the root itself
	mu       sync.Mutex
	live     map[int]Child // by leader pid (= group id)
	closed   bool          // root: KillAll has run, no new group may start
	onChange func([]Child) // a Sub's owner, told the Sub's groups after each change
	cgOnce   sync.Once     // root: cgBase learned
	cgBase   string        // root: where runs' cgroups are made ([Groups.cgroupRoot])
	watch    *os.File      // root: the watchdog's pipe, open for the program's life
	watched  bool          // root: the watchdog was started (or could not be)
}

// Child is a process group agentloop started: the pid of its leader, which is
// the group's id, and the leader's start time, which tells a reused pid apart.
type Child struct {
	PGID      int    `json:"pgid"`
	StartTime string `json:"start_time,omitempty"`
	// Marker is in the environment of every process the group's leader started,
	// even those that left the group (see [BecomeSubreaper]).
	Marker string `json:"marker,omitempty"`
	// Cgroup is the cgroup every process of the run is in, whatever it did to
	// its group, session or environment ("" where the system gives none).
	Cgroup string `json:"cgroup,omitempty"`
}

// ErrShuttingDown is the error (inside a *[StartError]) of a [Run] that was asked
// to start a process after [Groups.KillAll].
var ErrShuttingDown = errors.New("not started: every child process is being killed")

type groupsKey struct{}

// WithGroups returns a context whose [Run] calls register their process groups
// in g.
func WithGroups(ctx context.Context, g *Groups) context.Context {
	return context.WithValue(ctx, groupsKey{}, g)
}

// GroupsFrom returns the Groups ctx carries, or nil.
func GroupsFrom(ctx context.Context) *Groups {
	g, _ := ctx.Value(groupsKey{}).(*Groups)
	return g
}

// Sub returns a Groups for one part of the program: what it starts is recorded
// both in it and in g (so g.KillAll reaches it), and onChange is called with the
// Sub's live groups, sorted, after each start and end (under the lock: keep it
// short). A nil g gives a Groups of its own.
func (g *Groups) Sub(onChange func([]Child)) *Groups {
	if g == nil {
		return &Groups{onChange: onChange}
	}
	return &Groups{root: g.top(), onChange: onChange}
}

func (g *Groups) top() *Groups {
	if g.root != nil {
		return g.root
	}
	return g
}

// start starts cmd and records its group. Starting under the lock means that once
// KillAll has returned, every group ever started has been killed and no other
// can start.
func (g *Groups) start(cmd *exec.Cmd, marker, cgroup string) error {
	if g == nil {
		return startCmd(cmd)
	}
	r := g.top()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrShuttingDown
	}
	if r.Watchdog != "" && !r.watched {
		// Without one, a child's parent-death signal still ends it; its
		// own children are then left.
		r.watched = true
		r.watch, _ = startWatchdog(r.Watchdog)
	}
	if err := startCmd(cmd); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	st, _ := StartTime(pid)
	c := Child{PGID: pid, StartTime: st, Marker: marker, Cgroup: cgroup}
	r.add(c)
	if g != r {
		g.add(c)
	}
	g.changed()
	return nil
}

// end kills what is left of the group led by pid and forgets it. Both happen
// under the lock, so KillAll never signals a group id that has already been
// given up.
func (g *Groups) end(pid int) {
	if g == nil {
		killGroup(pid)
		return
	}
	r := g.top()
	r.mu.Lock()
	defer r.mu.Unlock()
	killGroup(pid)
	delete(r.live, pid)
	if g != r {
		delete(g.live, pid)
	}
	g.changed()
}

func (g *Groups) add(c Child) {
	if g.live == nil {
		g.live = map[int]Child{}
	}
	g.live[c.PGID] = c
}

// changed tells the owner; the caller holds the root's lock.
func (g *Groups) changed() {
	if g.onChange != nil {
		g.onChange(g.children())
	}
}

func (g *Groups) children() []Child {
	out := make([]Child, 0, len(g.live))
	for _, c := range g.live {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Child) int { return a.PGID - b.PGID })
	return out
}

// KillAll sends SIGKILL to every recorded process group at once, then to every
// process that left one of them but descends from it, and refuses any later start. It returns the number of groups signalled. The processes die
// asynchronously; the caller may exit right away. Called on a Sub, it kills the
// whole program's groups too.
func (g *Groups) KillAll() int {
	r := g.top()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	for pid := range r.live {
		killGroup(pid)
	}
	for _, c := range r.live {
		switch {
		case c.Cgroup != "":
			killCgroup(c.Cgroup, false, 0) // what left the group, even dropping the marker
		case !r.noSweep:
			sweep(c.Marker, false) // what left the group (setsid)
		}
	}
	if (r.NoCgroup || r.cgroupRoot() == "") && !r.noSweep {
		sweepStrays()
	}
	return len(r.live)
}

// Done tells the watchdog, when no process group is live, that the program
// ends with nothing of its runs left (each ended and swept what it started,
// its cgroup removed), so that it has nothing to look for; no group may
// start after it. With a group live, or a run's cgroup left (one that would
// not empty within its end's wait), it does nothing: the watchdog looks.
func (g *Groups) Done() {
	r := g.top()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.live) > 0 {
		return
	}
	r.closed = true
	r.cgOnce.Do(func() {}) // the runs' cgroup root as they learned it: none is made after
	if r.watch != nil && len(cgroupsOf(r.cgBase, os.Getpid())) == 0 {
		_, _ = r.watch.Write([]byte{watchdogDone, '\n'}) // the line ends: a shell's read returns now, not at this process's exit
	}
}

// cgroups reports whether runs started under g may get cgroups of their own.
func (g *Groups) cgroups() bool { return g == nil || !g.top().NoCgroup }

// others returns how many runs other than the one led by pid are live in the
// whole program.
func (g *Groups) others(pid int) int {
	if g == nil {
		return 0
	}
	r := g.top()
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.live)
	if _, ok := r.live[pid]; ok {
		n--
	}
	return n
}

// Len returns the number of process groups running now.
func (g *Groups) Len() int {
	r := g.top()
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(g.live)
}

// EndOrphans ends the process groups a program that died left running: each
// group that still exists (and whose leader, if alive, is the process that was
// recorded, not a reused pid) gets SIGTERM, and SIGKILL if any of it is left
// after grace. It returns the groups it found alive.
func EndOrphans(children []Child, grace time.Duration) []Child {
	var found []Child
	for _, c := range children {
		if c.PGID <= 1 || !groupExists(c.PGID) {
			continue
		}
		if Alive(c.PGID) {
			// The leader lives: it must be the process recorded, not a reused pid.
			if st, err := StartTime(c.PGID); err != nil || c.StartTime == "" || st != c.StartTime {
				continue
			}
		}
		// A group whose leader is gone keeps its id while any member lives: no
		// other process can have been given it since.
		found = append(found, c)
		termGroup(c.PGID)
	}
	defer func() {
		for _, c := range children {
			killCgroup(c.Cgroup, false, 0) // what left its group: its cgroup is the run's alone
		}
	}()
	if len(found) == 0 {
		return nil
	}
	deadline := time.Now().Add(grace)
	for _, c := range found {
		for groupExists(c.PGID) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if groupExists(c.PGID) {
			killGroup(c.PGID)
		}
	}
	return found
}
