package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/agentloop/agentloop/internal/redact"
)

// DefaultGrace is the time between SIGTERM and SIGKILL when [Spec.Grace] is zero.
const DefaultGrace = 5 * time.Second

// Spec describes one child process.
type Spec struct {
	Argv []string
	// Dir is the child's working directory ("": agentloop's); its PWD is set
	// to it too, as a shell's cd would: programs such as opencode take their
	// project directory from $PWD before the real one.
	Dir         string
	Env         []string      // nil: inherit os.Environ()
	Stdin       io.Reader     // nil: empty
	Stdout      io.Writer     // nil: discard
	Stderr      io.Writer     // nil: discard (may be the same writer as Stdout)
	Timeout     time.Duration // 0: none; on expiry the whole process group is ended
	IdleTimeout time.Duration // no output on stdout/stderr for this long ends it; 0: none
	Grace       time.Duration // SIGTERM to the group, SIGKILL after this; 0: 5s
	// Redact holds the secrets to redact from the output beyond those of
	// Env (the values of the other processes' environments); nil: Env's.
	Redact *redact.Redactor
}

// Result is how the process ended.
type Result struct {
	ExitCode     int    // -1 when killed by a signal
	Signal       string // "SIGTERM", "SIGKILL", … when it died of one
	TimedOut     bool
	IdleTimedOut bool
	Canceled     bool // ctx was canceled (context.Cause(ctx) says why)
	Duration     time.Duration
	OutputBytes  int64 // stdout+stderr bytes
	// LeftBehind counts the processes that had left the run's process group
	// (setsid, env -i) and were still running when it ended: agentloop killed
	// them.
	LeftBehind int
}

// StartError is returned by [Run] when the process could not be started.
type StartError struct {
	Argv []string
	Err  error
}

func (e *StartError) Error() string {
	name := "(empty command)"
	if len(e.Argv) > 0 {
		name = e.Argv[0]
	}
	return fmt.Sprintf("start %s: %v", name, e.Err)
}

func (e *StartError) Unwrap() error { return e.Err }

// Run starts the process in its own process group and waits. On timeout, idle timeout
// or ctx cancellation it sends SIGTERM to the whole group, then SIGKILL after Grace,
// and always kills what is left of the group once the leader has exited, so no child
// is left and no child holding the output pipes can make Run hang. When ctx carries
// a [Groups] (see [WithGroups]), the group is recorded there while it runs. The error is
// non-nil only when the process could not start (*StartError, which unwraps to the
// exec error).
func Run(ctx context.Context, s Spec) (Result, error) {
	start := time.Now()
	res := Result{ExitCode: -1}
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return res, &StartError{Argv: s.Argv, Err: errors.New("empty command line")}
	}
	if ctx.Err() != nil {
		res.Canceled = true
		return res, nil
	}
	grace := s.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	argv, err := commandLine(s.Argv) // on Windows: a .ps1, an npm .cmd shim
	if err != nil {
		return res, &StartError{Argv: s.Argv, Err: err}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = s.Dir, s.Env, s.Stdin
	cmd.WaitDelay = grace // bounds the copy of Stdin after the process exits
	setGroup(cmd)

	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	// Every process the child starts inherits the marker, so what leaves its
	// process group or session is still found and ended with it (sweep).
	marker := newMarker()
	cmd.Env = withPWD(withMarker(env, marker), s.Dir)
	// What the child prints is redacted before anything reads it: its
	// environment's secrets (and those of Redact) and credential shapes never
	// reach a log, a parser or the terminal.
	out := &output{start: start, redactor: s.Redact.With(env)}
	if err := out.open(cmd, s.Stdout, s.Stderr); err != nil {
		return res, &StartError{Argv: s.Argv, Err: err}
	}
	groups := GroupsFrom(ctx)
	cg := (*cgroup)(nil)
	if groups.cgroups() {
		cg = newCgroup(groups.cgroupRoot(), marker) // cgroup_linux.go: what drops the marker stays in it
	}
	cg.attach(cmd)
	err = groups.start(cmd, marker, cg.path())
	if err != nil && cg != nil && !errors.Is(err, ErrShuttingDown) {
		// The system gives a cgroup but not the right to start in it.
		cg.end(0)
		cg, cmd = nil, plainCopy(cmd)
		err = groups.start(cmd, marker, "")
	}
	if err != nil {
		cg.end(0)
		out.closeAll()
		return res, &StartError{Argv: s.Argv, Err: err}
	}
	out.startPumps()
	pid := cmd.Process.Pid
	// Where there is neither a cgroup nor a subreaper (macOS), the run's
	// process tree is watched: what leaves its group is noted while its
	// parents still link it to the leader (nil elsewhere).
	var tree *treeWatch
	if cg == nil {
		tree = watchTree(pid, marker)
	}

	waitc := make(chan struct{})
	go func() {
		_ = cmd.Wait() // the exit status is read from cmd.ProcessState
		close(waitc)
	}()

	var timeoutC, idleC <-chan time.Time
	if s.Timeout > 0 {
		t := time.NewTimer(s.Timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	var idleT *time.Timer
	if s.IdleTimeout > 0 {
		idleT = time.NewTimer(s.IdleTimeout)
		defer idleT.Stop()
		idleC = idleT.C
	}

	stop := false
	for !stop {
		select {
		case <-waitc:
			stop = true
			continue
		case <-ctx.Done():
			res.Canceled = true
		case <-timeoutC:
			res.TimedOut = true
		case <-idleC:
			quiet := time.Since(start) - out.lastOutput()
			if quiet < s.IdleTimeout {
				idleT.Reset(s.IdleTimeout - quiet)
				continue
			}
			res.IdleTimedOut = true
		}
		stop = true
		terminate(pid, grace, waitc)
	}
	// The leader is gone: end what the watch saw leave its group, while the
	// group's members still link it to the leader, then whatever is left of
	// the group (children that ignore SIGTERM, background jobs holding the
	// pipes).
	watched := tree.end()
	groups.end(pid)
	// And whatever left the group (setsid), even dropping the marker (env -i):
	// it may hold the output pipes, so before the drain. The run's cgroup
	// holds all of it, and ending it costs what is in it; without one, what
	// carries the marker is swept from /proc, and what dropped it is an orphan
	// agentloop adopted, told apart only when no other run is live.
	switch {
	case cg != nil:
		res.LeftBehind = cg.end(pid)
	case tree != nil:
		res.LeftBehind = watched // the marker's carriers too
	default:
		res.LeftBehind = sweep(marker, groups.others(pid) == 0)
	}
	out.drain(grace)

	res.ExitCode, res.Signal = exitStatus(cmd.ProcessState)
	res.OutputBytes = out.bytes.Load()
	res.Duration = time.Since(start)
	return res, nil
}

// plainCopy is cmd not yet started, as a new command without a cgroup.
func plainCopy(cmd *exec.Cmd) *exec.Cmd {
	c := exec.Command(cmd.Path, cmd.Args[1:]...)
	c.Args, c.Dir, c.Env = cmd.Args, cmd.Dir, cmd.Env
	c.Stdin, c.Stdout, c.Stderr, c.WaitDelay = cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.WaitDelay
	setGroup(c)
	return c
}

// terminate sends SIGTERM to the group and SIGKILL after grace if the leader has
// not exited by then; it returns once the leader is reaped.
func terminate(pid int, grace time.Duration, waitc <-chan struct{}) {
	termGroup(pid)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-waitc:
	case <-t.C:
		killGroup(pid)
		<-waitc
	}
}
