package proc

import "golang.org/x/sys/unix"

// pWExit is P_WEXIT from <sys/proc.h>, in a process's flags: it is exiting.
const pWExit = 0x2000

// scanProcs reads the parent, group, start time and state of every process
// (kern.proc.all).
func scanProcs() map[int]procInfo {
	out := map[int]procInfo{}
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return out
	}
	for _, kp := range kps {
		out[int(kp.Proc.P_pid)] = procInfo{
			ppid:    int(kp.Eproc.Ppid),
			pgid:    int(kp.Eproc.Pgid),
			sid:     -1,
			start:   startString(kp.Proc.P_starttime),
			zombie:  kp.Proc.P_stat == sZomb,
			exiting: kp.Proc.P_flag&pWExit != 0,
		}
	}
	return out
}

// hasMarker reports whether the process's environment holds a marker that
// match accepts in its AGENTLOOP_PROC list: its argument area
// (kern.procargs2), which the system gives for this user's processes only.
func hasMarker(pid int, match func([]byte) bool) bool {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return false
	}
	return envMarked(procargsEnv(b), match)
}
