package proc

import (
	"fmt"
	"os"
	"strings"
)

// StartTime returns the start time of the process (field 22 of /proc/PID/stat, in
// clock ticks since boot), which tells a live process from a later one that reused
// its pid.
func StartTime(pid int) (string, error) {
	fields, err := stat(pid)
	if err != nil {
		return "", err
	}
	// fields[0] is field 3 (state); field 22 is fields[19].
	if len(fields) < 20 {
		return "", fmt.Errorf("read start time of pid %d: short /proc stat", pid)
	}
	return fields[19], nil
}

func zombie(pid int) bool {
	fields, err := stat(pid)
	return err == nil && len(fields) > 0 && fields[0] == "Z"
}

// stat returns the fields of /proc/PID/stat after the command name, which may
// itself hold spaces and parentheses.
func stat(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, fmt.Errorf("read process %d: %w", pid, err)
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("read process %d: malformed /proc stat", pid)
	}
	return strings.Fields(s[i+1:]), nil
}
