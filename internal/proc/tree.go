package proc

import (
	"bytes"
	"time"
)

// watchEvery is how often a run's process tree is scanned where it is
// watched (macOS): a process that leaves the run's group and drops its marker
// (env -i setsid …) is found if it is still a descendant of the run in a scan.
const watchEvery = 200 * time.Millisecond

// procInfo is one process in a scan of the process table (procscan_*.go).
type procInfo struct {
	ppid    int
	pgid    int    // process group (macOS; 0 where it is not read)
	sid     int    // session id (Linux; -1 where it is not read)
	start   string // start time (macOS; "" where it is not read)
	zombie  bool
	exiting bool // it has begun to exit (Linux's PF_EXITING, macOS's P_WEXIT; a zombie has too)
}

// addDescendants adds to hit every descendant of a process in hit, by parent
// links.
func addDescendants(procs map[int]procInfo, hit map[int]bool, self int) {
	for changed := true; changed; {
		changed = false
		for pid, p := range procs {
			if !hit[pid] && hit[p.ppid] && pid != self {
				hit[pid], changed = true, true
			}
		}
	}
}

// treeSeen is what the watch of one run's process tree has seen, where no
// cgroup holds the run and no subreaper adopts what it leaves (macOS): every
// descendant of the run's leader, by parent links, in any scan. A process seen
// once stays the run's after its parent dies and the system's init adopts it,
// until it ends or its pid is reused (its start time tells).
type treeSeen struct {
	root  int            // the leader's pid, the run's process group
	known map[int]string // pid → start time, of every descendant seen
}

func newTreeSeen(root int) *treeSeen { return &treeSeen{root: root, known: map[int]string{}} }

// observe adds the descendants in procs of the leader and of every process
// seen before, and forgets those seen before that ended.
func (s *treeSeen) observe(procs map[int]procInfo) {
	hit := map[int]bool{s.root: true}
	for pid, start := range s.known {
		if p, ok := procs[pid]; ok && p.start == start {
			hit[pid] = true
		} else {
			delete(s.known, pid)
		}
	}
	addDescendants(procs, hit, -1)
	for pid := range hit {
		if pid != s.root {
			s.known[pid] = procs[pid].start
		}
	}
}

// left returns the processes seen that are still running in procs and have
// left the run's process group (what ends the group does not reach them).
func (s *treeSeen) left(procs map[int]procInfo) map[int]bool {
	out := map[int]bool{}
	for pid, start := range s.known {
		if p, ok := procs[pid]; ok && p.start == start && !p.zombie && p.pgid != s.root {
			out[pid] = true
		}
	}
	return out
}

// procargsEnv returns the environment in a process's argument area as macOS's
// kern.procargs2 gives it: the argument count (4 bytes, little-endian), the
// executable's path, NUL padding, the arguments, then the environment's
// KEY=VALUE strings, each ended by a NUL, until an empty one.
func procargsEnv(b []byte) [][]byte {
	if len(b) < 4 {
		return nil
	}
	argc := int(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
	rest := b[4:]
	i := bytes.IndexByte(rest, 0) // the end of the executable's path
	if i < 0 {
		return nil
	}
	rest = rest[i:]
	for len(rest) > 0 && rest[0] == 0 {
		rest = rest[1:]
	}
	var env [][]byte
	for n := 0; len(rest) > 0; n++ {
		s, after, _ := bytes.Cut(rest, []byte{0})
		rest = after
		if n < argc {
			continue
		}
		if len(s) == 0 {
			break
		}
		env = append(env, s)
	}
	return env
}

// envMarked reports whether an environment (KEY=VALUE strings) holds a marker
// that match accepts in its AGENTLOOP_PROC list.
func envMarked(env [][]byte, match func([]byte) bool) bool {
	for _, kv := range env {
		v, ok := bytes.CutPrefix(kv, []byte(markerVar+"="))
		if !ok {
			continue
		}
		for m := range bytes.SplitSeq(v, []byte{','}) {
			if match(m) {
				return true
			}
		}
	}
	return false
}
