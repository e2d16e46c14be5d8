package proc

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// markerVar is the environment variable that marks every process a [Run] starts
// and, by inheritance, all of their descendants: a comma-separated list of run
// markers (an agentloop run by an agent adds its own to its parent's).
const markerVar = "AGENTLOOP_PROC"

// newMarker names one Run uniquely on this host.
func newMarker() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%d-%x", os.Getpid(), b)
}

// withMarker returns env with marker added to its markerVar list.
func withMarker(env []string, marker string) []string {
	out := make([]string, 0, len(env)+1)
	prev := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, markerVar+"="); ok {
			prev = v
			continue
		}
		out = append(out, kv)
	}
	if prev != "" {
		marker = prev + "," + marker
	}
	return append(out, markerVar+"="+marker)
}

// withPWD sets PWD to dir, made absolute, when dir is set: an inherited PWD
// names agentloop's directory, not the child's.
func withPWD(env []string, dir string) []string {
	if dir == "" {
		return env
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return env
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PWD=") {
			out = append(out, kv)
		}
	}
	return append(out, "PWD="+abs)
}
