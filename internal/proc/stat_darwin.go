package proc

import (
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

// sZomb is SZOMB from <sys/proc.h>: a process that ended, not yet reaped.
const sZomb = 5

// StartTime returns the start time of the process (kern.proc.pid's
// p_starttime, seconds and microseconds), which tells a live process from a
// later one that reused its pid.
func StartTime(pid int) (string, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return "", fmt.Errorf("read process %d: %w", pid, err)
	}
	if int(kp.Proc.P_pid) != pid {
		return "", fmt.Errorf("read process %d: no such process", pid)
	}
	return startString(kp.Proc.P_starttime), nil
}

func startString(t unix.Timeval) string {
	return strconv.FormatInt(int64(t.Sec), 10) + "." + strconv.FormatInt(int64(t.Usec), 10)
}

func zombie(pid int) bool {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	return err == nil && int(kp.Proc.P_pid) == pid && kp.Proc.P_stat == sZomb
}
