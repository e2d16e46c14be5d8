package proc

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

// BecomeSubreaper makes this process the reaper of its orphaned descendants:
// a process that an agent or gate starts and that outlives its parent (a tool
// run with setsid, a daemon that double-forks) is reparented to agentloop
// instead of to init, so it stays in agentloop's process tree. It reports
// whether the system supports it (Linux 3.4 and later).
func BecomeSubreaper() bool {
	_, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0, 0, 0, 0)
	return errno == 0
}

// prGetChildSubreaper is PR_GET_CHILD_SUBREAPER from <linux/prctl.h>.
const prGetChildSubreaper = 37

// isSubreaper reports whether this process adopts its orphaned descendants.
func isSubreaper() bool {
	var on int32
	_, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prGetChildSubreaper, uintptr(unsafe.Pointer(&on)), 0, 0, 0, 0)
	return errno == 0 && on != 0
}

// sweep kills (SIGKILL) every process left over from one [Run] that has no
// cgroup: those whose environment carries the run's marker, which every
// descendant inherits even after leaving the process group or session
// (setsid), and every descendant of those; with strays, also what dropped the
// marker too ([sweepStrays]), in the same scans. It scans /proc until a scan
// finds nothing alive to kill, so a process forking while it is swept is
// caught by the next scan. Orphans reparented to this process (see
// [BecomeSubreaper]) are reaped. It returns how many it killed.
//
// Each scan reads the state of every process, and the environment only of
// this process's descendants when it is a subreaper: what a run started can
// then be nowhere else, however it left its group.
func sweep(marker string, strays bool) int {
	var match func([]byte) bool
	if marker != "" {
		match = func(m []byte) bool { return string(m) == marker }
	}
	return sweepMatching(match, strays, isSubreaper())
}

// SweepOrphansOf kills (SIGKILL) what is left of every [Run] of a process that
// died (pid): the processes whose environment carries one of its markers, and
// their descendants. A process that recovers a dead run's lock calls it, after
// [EndOrphans], for what the lock could not name (a child started in the
// moment before it was recorded, a tool that left its group). The caller must
// know that pid is dead and not reused: a live process's children would match.
// Those processes are not this one's descendants: every process's environment
// is read.
func SweepOrphansOf(pid int) int {
	if pid <= 0 || pid == os.Getpid() {
		return 0
	}
	prefix := []byte(strconv.Itoa(pid) + "-")
	return sweepMatching(func(m []byte) bool { return bytes.HasPrefix(m, prefix) }, false, false)
}

// EndLeftovers ends what agentloop processes that died on this machine left
// running, as a worker does when it starts (its predecessor killed, its
// agents still at work): the processes in a run cgroup of a dead agentloop
// process under this one's cgroup, then those whose environment carries the
// marker of a dead agentloop process ([SweepOrphansOf]), in this process's PID
// namespace (a marker names a process of the namespace it was made in). It
// returns how many processes it killed by marker.
func EndLeftovers() int {
	if base := cgroupBase(); base != "" {
		removeStaleCgroups(base)
	}
	return sweepDeadOwners(nil)
}

// sweepDeadOwners is [EndLeftovers]' sweep by marker, of the dead owners only
// accepts (nil: all).
func sweepDeadOwners(only func(owner int) bool) int {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return 0
	}
	self := os.Getpid()
	owners := map[int]bool{}
	for pid := range scanProcs() {
		if pid == self {
			continue
		}
		if l, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/pid"); err != nil || l != ns {
			continue
		}
		hasMarker(pid, func(m []byte) bool {
			owner, _, _ := bytes.Cut(m, []byte("-"))
			if o, err := strconv.Atoi(string(owner)); err == nil && o > 0 && o != self && (only == nil || only(o)) {
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

// sweepStrays kills (SIGKILL) the processes that left a run and dropped its
// marker (env -i setsid …), where no cgroup holds them: the orphans this
// process adopted as subreaper ([BecomeSubreaper]) that are in a session other
// than its own, and their descendants. Such a process names no run, so the
// caller calls it only when no other run is live. Processes agentloop starts
// itself (git) stay in its session and are never touched. It returns how many
// it killed.
func sweepStrays() int { return sweepMatching(nil, true, true) }

// sweepMatching kills the processes with a marker that match accepts (none
// for a nil match), with strays the orphans of other sessions this process
// adopted, and the descendants of both; with own, only this process's
// descendants' markers are read. See [sweep].
func sweepMatching(match func(marker []byte) bool, strays, own bool) int {
	self := os.Getpid()
	mySID := -1 // unknown: no process is taken for a stray
	if strays {
		if me, err := stat(self); err == nil && len(me) > 3 {
			if sid, err := strconv.Atoi(me[3]); err == nil {
				mySID = sid
			}
		}
	}
	killed := map[int]bool{}
	for kills, waits := 0, 0; kills < 20; {
		var procs map[int]procInfo
		if own {
			procs = scanDescendants(self)
		}
		if procs == nil {
			procs = scanProcs()
		}
		var mine map[int]bool // this process's descendants, when own
		if own && match != nil {
			mine = map[int]bool{self: true}
			addDescendants(procs, mine, -1)
		}
		hit := map[int]bool{}
		for pid, p := range procs {
			switch {
			case pid == self:
			case strays && adoptedStray(p, self, mySID):
				hit[pid] = true
			case match != nil && (mine == nil || mine[pid]) && hasMarker(pid, match):
				hit[pid] = true
			}
		}
		// Descendants of a marked process, by parent links, even if they
		// dropped the marker from their environment.
		addDescendants(procs, hit, self)
		if killAll(procs, hit, self, killed) > 0 {
			kills++
			continue
		}
		// Nothing left to kill, unless a descendant is exiting (one of the
		// run's group, killed a moment ago): its environment reads empty
		// already, and its children are not yet reparented to this process,
		// where the next scan finds them.
		if !own || waits >= exitWaits || !exitingDescendant(procs, self) {
			break
		}
		waits++
		time.Sleep(2 * time.Millisecond)
	}
	return len(killed)
}

// exitWaits bounds how many times a sweep waits 2 ms for an exiting
// descendant to become a zombie (a process in uninterruptible sleep can take
// long).
const exitWaits = 100

// exitingDescendant reports whether a descendant of self is exiting and not
// yet a zombie.
func exitingDescendant(procs map[int]procInfo, self int) bool {
	mine := map[int]bool{self: true}
	addDescendants(procs, mine, -1)
	for pid, p := range procs {
		if pid != self && mine[pid] && p.exiting && !p.zombie {
			return true
		}
	}
	return false
}

// adoptedStray reports whether p is an orphan this process (self, in the
// session mySID; -1 when unknown) adopted that is in a session other than its
// own: a process that left a run with setsid. The session of a process whose
// session leader lives outside its pid namespace reads 0, as agentloop's own
// does when it runs in a container whose first process never called setsid:
// its own children (git) then read 0 too, and a stray its own pid.
func adoptedStray(p procInfo, self, mySID int) bool {
	return mySID >= 0 && p.ppid == self && p.sid >= 0 && p.sid != mySID
}

// killAll sends SIGKILL to the processes in hit that are not zombies, adds
// them to killed, reaps those that are this process's orphans, and returns how
// many it signalled (a dying process again in a later scan counts once in
// killed).
func killAll(procs map[int]procInfo, hit map[int]bool, self int, killed map[int]bool) int {
	n := 0
	for pid := range hit {
		if procs[pid].zombie {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
			killed[pid] = true
		}
	}
	for pid := range hit {
		if procs[pid].ppid == self {
			go reap(pid)
		}
	}
	return n
}

// reap collects the exit status of an orphan agentloop inherited as subreaper,
// so it does not stay a zombie. Only pids that carry a run's marker get here,
// never a process os/exec is waiting for.
func reap(pid int) {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			return
		}
	}
}
