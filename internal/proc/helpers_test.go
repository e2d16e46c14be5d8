package proc

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// pids parses the pids a child printed, one a word.
func pids(t *testing.T, out string) []int {
	t.Helper()
	var ps []int
	for _, f := range strings.Fields(out) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("parse pid %q: %v", f, err)
		}
		ps = append(ps, pid)
	}
	if len(ps) == 0 {
		t.Fatal("script printed no pids")
	}
	return ps
}

// assertGone fails unless every pid is gone within limit.
func assertGone(t *testing.T, ps []int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var alive []int
		for _, pid := range ps {
			if Alive(pid) {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes %v still alive %s after Run returned", alive, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
