//go:build unix

package proc

import (
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// gated is a writer whose first write waits for release, after saying so
// on entered.
type gated struct {
	entered, release chan struct{}
	mu               sync.Mutex
	got              strings.Builder
}

func (g *gated) Write(p []byte) (int, error) {
	g.mu.Lock()
	first := g.got.Len() == 0
	g.mu.Unlock()
	if first {
		close(g.entered)
		<-g.release
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.got.Write(p)
}

// TestDrainReadsWhatThePipeHolds: once the grace runs out, drain stops
// waiting for the end of a pipe that a process which left the run holds open
// (here the test, still writing), but what the pipe held behind a pump that
// was held back is passed on all the same, and drain returns.
func TestDrainReadsWhatThePipeHolds(t *testing.T) {
	t.Parallel()
	const grace = 20 * time.Millisecond
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	dst := &gated{entered: make(chan struct{}), release: make(chan struct{})}
	o := &output{start: time.Now(), readers: []*os.File{r}, dests: []io.Writer{dst}}
	o.startPumps()
	if _, err := w.WriteString("first\n"); err != nil {
		t.Fatal(err)
	}
	<-dst.entered // the pump holds "first" and has not read on
	if _, err := w.WriteString("second\n"); err != nil {
		t.Fatal(err)
	}
	go func() { // and the holder floods the pipe on: drain still returns
		for {
			if _, err := w.WriteString(strings.Repeat("x", 64<<10)); err != nil {
				return
			}
		}
	}()
	time.AfterFunc(grace+300*time.Millisecond, func() { close(dst.release) })
	start := time.Now()
	o.drain(grace)
	if took := time.Since(start); took > grace+300*time.Millisecond+time.Second {
		t.Errorf("drain took %s with the pipe held open, want about %s", took, grace+300*time.Millisecond)
	}
	dst.mu.Lock()
	defer dst.mu.Unlock()
	if got := dst.got.String(); !strings.HasPrefix(got, "first\nsecond\n") {
		t.Errorf("passed on %q, want it to start with what the pipe held, %q", got[:min(len(got), 40)], "first\nsecond\n")
	}
}
