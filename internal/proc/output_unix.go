//go:build unix

package proc

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// readNow reads from the pipe r what it holds, without waiting for more (r
// is non-blocking: os.Pipe's are, and nothing here calls their Fd): 0 bytes
// when it is empty or at its end.
func readNow(r *os.File, p []byte) (int, error) {
	c, err := r.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	cerr := c.Read(func(fd uintptr) bool {
		for {
			n, err = unix.Read(int(fd), p)
			if !errors.Is(err, unix.EINTR) {
				return true // never wait for the pipe to be readable
			}
		}
	})
	if errors.Is(err, unix.EAGAIN) {
		return 0, nil
	}
	return max(n, 0), errors.Join(err, cerr)
}
