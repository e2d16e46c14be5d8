package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// WatchdogCommand is the first argument that makes agentloop's binary run as
// the watchdog of another agentloop process ([Watchdog]); the command line
// parses it before anything else.
const WatchdogCommand = "proc-watchdog"

// startWatchdog starts the watchdog of this process, in a process group of
// its own, reading a pipe whose other end only this process holds. When this
// process dies, however it dies (SIGKILL, the OOM killer), the kernel closes
// that end and the watchdog ends what its runs left: the agents and gates a
// parent-death signal does not reach (their children, what left their
// groups). The pipe is returned, to be kept open for the life of the process.
// See [watchdogCmd] for what runs.
func startWatchdog(exe string) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := watchdogCmd(exe, os.Getpid(), r, shellWaits(exe))
	err = cmd.Start()
	closeExtra(cmd)
	if err != nil {
		// No shell to wait in: agentloop's binary waits itself.
		if cmd = watchdogCmd(exe, os.Getpid(), r, false); cmd.Start() != nil {
			w.Close()
			return nil, fmt.Errorf("start the watchdog: %w", err)
		}
	}
	go func() { _ = cmd.Wait() }() // it exits once this process is gone; reaped if that is before
	return w, nil
}

// closeExtra closes this process's copies of the files cmd was given.
func closeExtra(cmd *exec.Cmd) {
	for _, f := range cmd.ExtraFiles {
		_ = f.Close()
	}
}

// watchdogCmd is the watchdog of the process pid reading stdin: agentloop's
// binary (exe) run as [WatchdogCommand], or, with waiter, a shell that waits
// for the end of stdin and runs that binary only when there is work for it:
// when the watched process did not say it was done ([watchdogDone]). A run of
// agentloop that ends cleanly so starts the binary once, not twice: its
// start (the runtime, every package's initialization) cost about as much CPU
// as agentloop's own start, a tenth of a short run's.
func watchdogCmd(exe string, pid int, stdin *os.File, waiter bool) *exec.Cmd {
	cmd := &exec.Cmd{Path: exe, Args: []string{"agentloop", WatchdogCommand, strconv.Itoa(pid)}, Stdin: stdin}
	if waiter && runtime.GOOS != "windows" {
		// read returns at the end of the input with what it read: "d" alone
		// is done. The binary then reads the end of the same pipe: not done.
		// The binary is run by its path, as it was started (its name
		// tells a test binary what to play); one removed by then (go run's,
		// removed as it exits) is run from fd 3, which holds it open.
		const wait = `IFS= read -r done; [ "$done" = d ] && exit 0; [ -e "$0" ] || exec /proc/self/fd/3 "$@"; exec "$0" "$@"`
		if runtime.GOOS == "linux" {
			if f, err := os.Open(exe); err == nil {
				cmd.ExtraFiles = []*os.File{f}
			}
		}
		cmd.Path, cmd.Args = waiterShell, append([]string{"sh", "-c", wait, exe}, cmd.Args[1:]...)
	}
	ownGroup(cmd) // a signal to this process's group (a terminal's, a supervisor's) does not end it, nor does its death
	return cmd
}

// shellWaits reports whether the watchdog of agentloop's binary exe waits
// in a shell ([watchdogCmd]): not for a Go test binary (NAME.test), which
// plays agentloop only when started under that name (its os.Args[0]), a name
// the shell's exec cannot give it (POSIX sh has no exec -a): run under its
// own, it ran its whole test suite, whose killed workers' watchdogs ran it
// again.
func shellWaits(exe string) bool {
	base := strings.TrimSuffix(filepath.Base(exe), ".exe")
	return !strings.HasSuffix(base, ".test")
}

// waiterShell is the shell the watchdog waits in ([watchdogCmd]).
const waiterShell = "/bin/sh"

// watchdogDone is the byte the watched process writes to the watchdog's pipe
// when it ends with no process group live ([Groups.Done]): every run ended and
// swept what it started, and no other may start. The watchdog then looks in
// the process's cgroups alone, not through every process in /proc for its
// markers (a scan that cost about a tenth of a short run's CPU). A newline
// follows it, so that the shell the watchdog waits in ends as soon as it is
// told, while this process still ends, not after its exit closed the pipe:
// 1.5 ms after, on a quiet machine, a process a run of agentloop leaves
// behind it.
const watchdogDone = 'd'

// Watchdog is the watchdog of the agentloop process args[0] names: it waits
// until that process is gone (its end of the pipe on stdin closed), then
// kills what the runs of that process left running: the processes carrying
// one of its markers and their descendants (unless the process said it was
// done, see [Groups.Done]), and what is in its runs' cgroups. It returns the
// exit code.
func Watchdog(args []string, stdin io.Reader) int {
	if len(args) != 1 {
		return 2
	}
	pid, err := strconv.Atoi(args[0])
	if err != nil || pid <= 1 {
		return 2
	}
	buf := make([]byte, 1)
	done := false
	for {
		n, err := stdin.Read(buf)
		if n > 0 && buf[0] != '\n' { // the newline after watchdogDone
			done = buf[0] == watchdogDone
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return 1
			}
			break
		}
	}
	// Only that process held the pipe's other end (close-on-exec: no child
	// inherits it) and it never closes it: the end of file is its exit, even
	// when it does not yet read as a zombie (a killed process closes its
	// files first).
	killCgroupsOf(pid)
	if !done {
		SweepOrphansOf(pid)
	}
	return 0
}
