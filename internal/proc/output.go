package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentloop/agentloop/internal/redact"
)

// readSize is the most read from an output pipe at once: a flood is passed on
// (redacted, split into lines, logged) in pieces this large.
const readSize = 256 << 10

// firstRead is the size of a pipe's first reads: most children (git, a
// shell, an agent's short answer) print less, and a buffer of readSize for
// each of their pipes was a fifth of what a short run allocated. A read
// that fills it grows it to readSize.
const firstRead = 16 << 10

// output copies the child's stdout and stderr through pipes of our own, so that
// Run decides when to stop reading, counts bytes and notes the last output time.
type output struct {
	start    time.Time
	bytes    atomic.Int64
	last     atomic.Int64 // time.Duration since start of the last output
	readers  []*os.File
	writers  []*os.File // child ends, closed in the parent after Start
	dests    []io.Writer
	redactor *redact.Redactor
	flush    []*redact.Writer
	wg       sync.WaitGroup
}

func (o *output) open(cmd *exec.Cmd, stdout, stderr io.Writer) error {
	pipe := func(w io.Writer) (*os.File, error) {
		r, wr, err := os.Pipe()
		if err != nil {
			o.closeAll()
			return nil, fmt.Errorf("create output pipe: %w", err)
		}
		growPipe(r)
		if w != nil {
			rw := o.redactor.NewWriter(w)
			o.flush = append(o.flush, rw)
			w = rw
		}
		o.readers, o.writers, o.dests = append(o.readers, r), append(o.writers, wr), append(o.dests, w)
		return wr, nil
	}
	w, err := pipe(stdout)
	if err != nil {
		return err
	}
	cmd.Stdout = w
	if sameWriter(stdout, stderr) {
		cmd.Stderr = w // one pipe keeps the interleaving the child wrote
		return nil
	}
	if cmd.Stderr, err = pipe(stderr); err != nil {
		return err
	}
	return nil
}

func (o *output) startPumps() {
	for _, w := range o.writers {
		_ = w.Close()
	}
	o.writers = nil
	for i, r := range o.readers {
		o.wg.Go(func() { o.pump(r, o.dests[i]) })
	}
}

func (o *output) pump(r *os.File, dst io.Writer) {
	buf := make([]byte, firstRead)
	var werr error
	for {
		n, err := r.Read(buf)
		if n > 0 {
			werr = o.pass(buf[:n], dst, werr)
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				o.rest(r, buf, dst, werr)
			}
			return
		}
		if n == len(buf) && n < readSize {
			buf = make([]byte, readSize) // a flood
		}
	}
}

// pass counts p as output and writes it to dst, unless an earlier write
// failed (werr): the pump keeps reading then, so the child never blocks.
func (o *output) pass(p []byte, dst io.Writer, werr error) error {
	o.bytes.Add(int64(len(p)))
	o.last.Store(int64(time.Since(o.start)))
	if dst != nil && werr == nil {
		_, werr = dst.Write(p)
	}
	return werr
}

// restMax bounds what [output.rest] reads: more than a pipe holds (pipeSize
// on Linux, 64 KiB on macOS), so all that was in it is read, and a process
// that left the run and still writes cannot keep the pump reading.
const restMax = 4 << 20

// rest passes on what the pipe r holds once drain stopped waiting for its end
// (the read deadline that ended the pump's Read): what the child wrote
// before it exited and the pump, held back (a loaded machine, a slow dst),
// had not yet read. It reads without waiting, until the pipe is empty or at
// its end, at most restMax bytes.
func (o *output) rest(r *os.File, buf []byte, dst io.Writer, werr error) {
	if r.SetReadDeadline(time.Time{}) != nil {
		return
	}
	for total := 0; total < restMax; {
		n, err := readNow(r, buf)
		if n > 0 {
			werr = o.pass(buf[:n], dst, werr)
			total += n
		}
		if n <= 0 || err != nil {
			return
		}
	}
}

func (o *output) lastOutput() time.Duration { return time.Duration(o.last.Load()) }

// drain waits for the pumps to reach end of file, at most grace: a process that
// left the group (setsid) may hold the pipes open forever. Then it stops
// waiting for more, not reading: a read deadline wakes each pump, which
// passes on what its pipe still holds ([output.rest]), for a pump may not
// have read all the child wrote before it exited (on a loaded machine it
// may not have run at all within grace). Where a pipe takes no deadline
// (Windows), it is closed, and what it held is lost.
func (o *output) drain(grace time.Duration) {
	done := make(chan struct{})
	go func() { o.wg.Wait(); close(done) }()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		for _, r := range o.readers {
			if r.SetReadDeadline(time.Now()) != nil {
				_ = r.Close() // unblocks the pending Read
			}
		}
		<-done
	}
	for _, w := range o.flush {
		_ = w.Flush() // a last line without a newline
	}
	o.closeAll()
}

func (o *output) closeAll() {
	for _, f := range append(o.readers, o.writers...) {
		_ = f.Close()
	}
}

// sameWriter reports whether a and b are the same writer (both nil counts),
// without panicking on writers of an incomparable type.
func sameWriter(a, b io.Writer) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}
