package proc

import (
	"bytes"
	"os"
	"strconv"
)

// pfExiting is PF_EXITING from <linux/sched.h>, in a process's flags.
const pfExiting = 0x4

// scanProcs reads the parent and state of every process in /proc.
func scanProcs() map[int]procInfo {
	out := map[int]procInfo{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			out[pid] = p
		}
	}
	return out
}

// scanDescendants reads the parent and state of self and of every process
// below it, following each thread's list of children
// (/proc/PID/task/TID/children): work proportional to agentloop's own
// descendants, not to the machine's process table. A subreaper needs no more:
// whatever a run started and left behind is reparented to it. It returns nil
// when the system keeps no such lists (a kernel without CONFIG_PROC_CHILDREN),
// and the caller scans every process instead.
func scanDescendants(self int) map[int]procInfo {
	if _, err := os.Stat("/proc/thread-self/children"); err != nil {
		return nil
	}
	out := map[int]procInfo{}
	queue := []int{self}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if _, seen := out[pid]; seen {
			continue
		}
		p, ok := readProc(pid)
		if !ok {
			continue // gone since its parent listed it
		}
		out[pid] = p
		queue = append(queue, children(pid)...)
	}
	return out
}

// children lists the children of every thread of pid (none for a process
// that ended since it was listed).
func children(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if err != nil {
			continue // the thread ended
		}
		for f := range bytes.FieldsSeq(b) {
			if c, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// readProc reads one process's parent, session and state from its stat file.
func readProc(pid int) (procInfo, bool) {
	fields, err := stat(pid)
	if err != nil || len(fields) < 2 {
		return procInfo{}, false
	}
	ppid, _ := strconv.Atoi(fields[1])
	sid := -1
	if len(fields) > 3 {
		sid, _ = strconv.Atoi(fields[3])
	}
	exiting := false
	if len(fields) > 6 { // fields[6] is field 9, flags
		flags, _ := strconv.ParseUint(fields[6], 10, 64)
		exiting = flags&pfExiting != 0
	}
	return procInfo{ppid: ppid, sid: sid, zombie: fields[0] == "Z", exiting: exiting}, true
}

// hasMarker reports whether the process's environment holds a marker that
// match accepts in its AGENTLOOP_PROC list.
func hasMarker(pid int, match func([]byte) bool) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for kv := range bytes.SplitSeq(b, []byte{0}) {
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
