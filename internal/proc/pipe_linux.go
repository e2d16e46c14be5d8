package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is the capacity asked for the pipes an agent's output goes
// through (Linux's default is 64 KiB; 1 MiB is what an unprivileged process
// may ask, /proc/sys/fs/pipe-max-size). A flood then costs fewer wake-ups of
// the writer and the reader each, and fewer reads; the memory is the
// kernel's, not agentloop's.
const pipeSize = 1 << 20

// growPipe asks for a larger capacity of the pipe r reads from; when refused
// (a lower limit), the pipe keeps its size.
func growPipe(r *os.File) {
	c, err := r.SyscallConn()
	if err != nil {
		return
	}
	_ = c.Control(func(fd uintptr) {
		_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize)
	})
}
