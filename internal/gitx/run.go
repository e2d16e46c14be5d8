package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// StateDir is agentloop's own directory, at the top of the work tree or in the
// subdirectory agentloop runs from. Snapshots leave every directory of that name
// out and Restore never touches them, even when they are not git-ignored.
const StateDir = ".agentloop"

// stateSpec is the pathspec of every StateDir in the work tree, and
// stateExclude the pathspec that leaves them out.
func stateSpec() string    { return ":(top,glob)**/" + StateDir + "/**" }
func stateExclude() string { return ":(top,glob,exclude)**/" + StateDir + "/**" }

// maxOutput caps what one git command may print on stdout (a diff of generated
// files can be huge); beyond it the output is cut and [ErrTruncated] returned.
const maxOutput = 32 << 20

// stderrKeep is how much of git's stderr an [Error] keeps (the tail).
const stderrKeep = 4 << 10

// waitDelay bounds the wait for git's pipes after it was told to stop.
const waitDelay = 5 * time.Second

// ErrTruncated reports that git printed more than the package keeps; the output
// returned with it is the beginning.
var ErrTruncated = errors.New("gitx: output truncated")

// Error is a git command that failed: its arguments, exit code and stderr.
type Error struct {
	Args     []string
	ExitCode int // -1 when git did not run to completion
	Stderr   string
	Err      error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		return fmt.Sprintf("git %s: %v", strings.Join(e.Args, " "), e.Err)
	}
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.Args, " "), e.Err, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// cmd is one git invocation.
type cmd struct {
	dir   string
	env   []string // added to the cleaned environment
	stdin io.Reader
	args  []string
}

// git runs git args in dir and returns its stdout.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	return cmd{dir: dir, args: args}.run(ctx)
}

// run runs the command and returns its stdout; a failure is an *[Error].
func (c cmd) run(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(c.args, " "), err)
	}
	x := exec.CommandContext(ctx, "git", c.args...)
	x.Dir = c.dir
	x.Env = append(cleanEnv(os.Environ()), c.env...)
	x.Stdin = c.stdin
	var out limitBuffer
	out.max = maxOutput
	var errb tailBuffer
	errb.max = stderrKeep
	x.Stdout = &out
	x.Stderr = &errb
	ownGroup(x)
	x.WaitDelay = waitDelay
	err := x.Run()
	reapGroup(x)
	if err != nil {
		code := -1
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			code = ee.ExitCode()
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return out.String(), &Error{Args: c.args, ExitCode: code, Stderr: errb.String(), Err: err}
	}
	if out.cut {
		return out.String(), fmt.Errorf("git %s: %w at %d bytes", strings.Join(c.args, " "), ErrTruncated, maxOutput)
	}
	return out.String(), nil
}

// cleanEnv drops the variables that would point git at another repository or
// index than the one the package chooses, and disables every prompt.
func cleanEnv(env []string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_INDEX_FILE", "GIT_DIR", "GIT_WORK_TREE", "GIT_TERMINAL_PROMPT", "GIT_PREFIX":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
}

// exitCode returns the exit code of a failed git command, or -1.
func exitCode(err error) int {
	if ge, ok := errors.AsType[*Error](err); ok {
		return ge.ExitCode
	}
	return -1
}

// limitBuffer keeps the first max bytes written to it.
type limitBuffer struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (b *limitBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room < len(p) {
		b.cut = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

// ReadFrom reads r to its end into the buffer, the first max bytes kept: os/exec
// copies git's output with it, into the buffer itself, instead of through a
// 32 KiB buffer of its own for each stream of each git process (a third of
// what a short run allocated).
func (b *limitBuffer) ReadFrom(r io.Reader) (int64, error) {
	var total int64
	for {
		if b.buf.Len() >= b.max {
			n, err := io.Copy(io.Discard, r) // io.Discard reads through a pooled buffer
			if n > 0 {
				b.cut = true
			}
			return total + n, err
		}
		b.buf.Grow(min(bytes.MinRead, b.max-b.buf.Len()))
		room := b.buf.AvailableBuffer()
		room = room[:min(cap(room), b.max-b.buf.Len())]
		n, err := r.Read(room)
		b.buf.Write(room[:n])
		total += int64(n)
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

func (b *limitBuffer) String() string { return b.buf.String() }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

// ReadFrom reads r to its end, the last max bytes kept (see
// [limitBuffer.ReadFrom]).
func (b *tailBuffer) ReadFrom(r io.Reader) (int64, error) {
	var total int64
	for {
		if len(b.buf) == cap(b.buf) {
			b.buf = slices.Grow(b.buf, bytes.MinRead)
		}
		n, err := r.Read(b.buf[len(b.buf):cap(b.buf)])
		total += int64(n)
		_, _ = b.Write(b.buf[len(b.buf) : len(b.buf)+n]) // keeps the tail
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

func (b *tailBuffer) String() string { return string(b.buf) }
