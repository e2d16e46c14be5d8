package proc

import (
	"strconv"
	"strings"
	"sync"
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

// lineEvents returns a writer for a child's output and a channel that is closed
// once the output has had n lines.
func lineEvents(n int) (*linesSeen, <-chan struct{}) {
	l := &linesSeen{want: n, done: make(chan struct{})}
	l.w = Lines(1024, l.line)
	return l, l.done
}

type linesSeen struct {
	mu    sync.Mutex
	w     interface{ Write([]byte) (int, error) }
	lines []string
	want  int
	done  chan struct{}
}

func (l *linesSeen) Write(p []byte) (int, error) { return l.w.Write(p) }

func (l *linesSeen) line(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, string(b))
	if len(l.lines) == l.want {
		close(l.done)
	}
}

func (l *linesSeen) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}
