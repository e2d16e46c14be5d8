package proc

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// BecomeSubreaper reports false: only Linux can adopt orphaned descendants.
// On macOS each run's tree is watched instead ([watchTree]).
func BecomeSubreaper() bool { return false }

// Contains reports the process group and the watch of each run's tree.
func (g *Groups) Contains() Containment { return Containment{Kind: ContainWatch} }

// sweep kills (SIGKILL) the processes whose environment carries the run's
// marker, which every descendant inherits even after leaving the process
// group or session, and their descendants; strays are not told apart here
// (no subreaper). It returns how many it killed.
func sweep(marker string, _ bool) int {
	if marker == "" {
		return 0
	}
	return sweepMarked(func(m []byte) bool { return string(m) == marker }, nil, 0)
}

// SweepOrphansOf kills (SIGKILL) what is left of every [Run] of a process that
// died (pid): the processes whose environment carries one of its markers, and
// their descendants. The caller must know that pid is dead and not reused.
func SweepOrphansOf(pid int) int {
	if pid <= 0 || pid == os.Getpid() {
		return 0
	}
	prefix := []byte(strconv.Itoa(pid) + "-")
	return sweepMarked(func(m []byte) bool { return bytes.HasPrefix(m, prefix) }, nil, 0)
}

// EndLeftovers ends what agentloop processes that died on this machine left
// running: the processes whose environment carries the marker of a dead
// agentloop process. It returns how many it killed.
func EndLeftovers() int {
	self := os.Getpid()
	owners := map[int]bool{}
	for pid := range scanProcs() {
		if pid == self {
			continue
		}
		hasMarker(pid, func(m []byte) bool {
			owner, _, _ := bytes.Cut(m, []byte("-"))
			if o, err := strconv.Atoi(string(owner)); err == nil && o > 0 && o != self {
				owners[o] = true
			}
			return false
		})
	}
	n := 0
	for o := range owners {
		if !Alive(o) {
			n += SweepOrphansOf(o)
		}
	}
	return n
}

// sweepMarked kills the processes with a marker that match accepts, those
// seen accepts of a scan (nil: none), and the descendants of both, but the
// members of the process group group (0: none), which the caller ends. It
// scans until a scan finds nothing alive to kill, so a process forking while
// it is swept is caught by the next one. It returns how many it killed.
func sweepMarked(match func([]byte) bool, seen func(map[int]procInfo) map[int]bool, group int) int {
	self := os.Getpid()
	killed := map[int]bool{}
	for round := 0; round < 20; round++ {
		procs := scanProcs()
		hit := map[int]bool{}
		if seen != nil {
			hit = seen(procs)
		}
		for pid := range procs {
			if pid != self && !hit[pid] && hasMarker(pid, match) {
				hit[pid] = true
			}
		}
		addDescendants(procs, hit, self)
		n := 0
		for pid := range hit {
			p := procs[pid]
			if pid == self || p.zombie || p.exiting || group != 0 && p.pgid == group {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
				killed[pid] = true
			}
		}
		if n == 0 {
			break
		}
	}
	return len(killed)
}

// treeWatch watches one run's process tree (macOS has no cgroups and no
// subreaper): every descendant of its leader is noted as it is seen, so that
// one that leaves the run's process group and outlives its parent is still
// the run's when it ends.
type treeWatch struct {
	marker string
	mu     sync.Mutex
	seen   *treeSeen
	stop   chan struct{}
	done   chan struct{}
}

// watchTree starts the watch of the run led by pid, whose processes carry
// marker.
func watchTree(pid int, marker string) *treeWatch {
	w := &treeWatch{marker: marker, seen: newTreeSeen(pid), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			w.observe(scanProcs())
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *treeWatch) observe(procs map[int]procInfo) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen.observe(procs)
}

// end stops the watch and kills (SIGKILL) what left the run's process group:
// the processes seen in the run's tree, those that carry its marker, and
// their descendants; the group itself is the caller's to end. It returns how
// many it killed.
func (w *treeWatch) end() int {
	if w == nil {
		return 0
	}
	close(w.stop)
	<-w.done
	return sweepMarked(func(m []byte) bool { return string(m) == w.marker }, func(procs map[int]procInfo) map[int]bool {
		w.observe(procs)
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.seen.left(procs)
	}, w.seen.root)
}
