package proc

import (
	"context"
	"errors"
	"os/exec"
	"sync"
)

// Groups records the process groups that [Run] has started and not yet ended, so
// that a program can end all of its children at once: on a second Ctrl-C it calls
// [Groups.KillAll] and exits without waiting for any grace period. A program makes
// one Groups, hands it to every Run through the context ([WithGroups]) and keeps
// it; Run called with a context that carries none registers nothing. The zero
// value is ready to use.
type Groups struct {
	mu     sync.Mutex
	live   map[int]struct{} // leader pid (= group id) of each running group
	closed bool             // KillAll has run: no new group may start
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

func groupsFrom(ctx context.Context) *Groups {
	g, _ := ctx.Value(groupsKey{}).(*Groups)
	return g
}

// start starts cmd and records its group. Starting under the lock means that once
// KillAll has returned, every group ever started has been killed and no other
// can start.
func (g *Groups) start(cmd *exec.Cmd) error {
	if g == nil {
		return cmd.Start()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrShuttingDown
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	if g.live == nil {
		g.live = map[int]struct{}{}
	}
	g.live[cmd.Process.Pid] = struct{}{}
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
	g.mu.Lock()
	defer g.mu.Unlock()
	killGroup(pid)
	delete(g.live, pid)
}

// KillAll sends SIGKILL to every recorded process group at once and refuses any
// later start. It returns the number of groups signalled. The processes die
// asynchronously; the caller may exit right away.
func (g *Groups) KillAll() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	for pid := range g.live {
		killGroup(pid)
	}
	return len(g.live)
}

// Len returns the number of process groups running now.
func (g *Groups) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.live)
}
