package testenv

import (
	"bytes"
	"sync"
)

// Output collects what a process a test started writes, and may be read while
// the process still writes to it (exec.Cmd copies into it from a goroutine of
// its own).
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

// String returns what was written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}
