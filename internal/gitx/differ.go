package gitx

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// treeDiffer is one `git diff-tree --stdin` a checkpointer keeps for its life:
// every diff between two known trees (an iteration's, the run's since its
// start) is asked of the same process, a line "FROM TO" each, instead of
// starting git for each iteration. After the lines of a request it writes
// [differEnd], which diff-tree prints back as it is (a line that names no
// object) and flushes: where the request's output ends. A diff-tree that fails,
// or a request whose output is cut for size, is given up (the process stopped):
// the caller asks git again, a process a diff, which says what went wrong.
// A process left idle for [differIdle] (since it was started or last asked)
// is stopped (a worker keeps many runs' workspaces between their steps), and
// started again when asked.
type treeDiffer struct {
	mu   sync.Mutex
	x    *exec.Cmd
	in   io.WriteCloser
	outf *os.File
	out  *bufio.Reader
	idle *time.Timer   // stops the process when it has not been asked for a while
	wait time.Duration // how long is a while: differIdle when 0
	dead bool          // failed once: never started again
}

// differIdle is how long a diff-tree process waits for its next request.
const differIdle = 10 * time.Second

// differEnd ends a request: no line of a diff can be it (each starts with a
// space, +, -, @, \, a header word or an object name).
const differEnd = "#agentloop-end"

// diffArgsStdin are diff-tree's options, the ones [diffArgs] gives git diff.
func diffArgsStdin() []string {
	return []string{"-c", "core.quotePath=false", "diff-tree", "--stdin", "-r", "-p", "-M",
		"--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"}
}

// start starts the process, in top.
func (d *treeDiffer) start(top string) error {
	x := exec.Command("git", diffArgsStdin()...)
	x.Dir = top
	x.Env = cleanEnv(os.Environ())
	ownGroup(x) // its group, reaped when it is stopped
	x.Cancel = nil
	in, err := x.StdinPipe()
	if err != nil {
		return err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		in.Close()
		return err
	}
	x.Stdout = pw
	if err := x.Start(); err != nil {
		in.Close()
		pr.Close()
		pw.Close()
		return err
	}
	pw.Close()
	d.x, d.in, d.outf, d.out = x, in, pr, bufio.NewReaderSize(pr, 16<<10)
	return nil
}

// diffs returns the diff from each tree of froms to tree, by from tree. An
// error means the caller asks git otherwise.
func (d *treeDiffer) diffs(ctx context.Context, top string, froms []string, tree string) (map[string]string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dead {
		return nil, errors.New("git diff-tree --stdin failed before")
	}
	defer d.touch()
	if d.x == nil {
		if err := d.start(top); err != nil {
			d.dead = true
			return nil, fmt.Errorf("start git diff-tree --stdin: %w", err)
		}
	}
	out, err := d.ask(ctx, froms, tree)
	if err != nil {
		d.stop(true)
		d.dead = true
	}
	return out, err
}

// warm starts the process ahead of its first request, so that git's start
// overlaps what comes before (the agent's run) instead of following it.
func (d *treeDiffer) warm(top string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.x == nil && !d.dead && d.start(top) != nil {
		d.dead = true
	}
	d.touch()
}

// touch counts [differIdle] from now (d.mu held).
func (d *treeDiffer) touch() {
	wait := cmp.Or(d.wait, differIdle)
	if d.idle == nil {
		d.idle = time.AfterFunc(wait, d.close)
		return
	}
	d.idle.Reset(wait)
}

// ask writes one request and reads its output to [differEnd].
func (d *treeDiffer) ask(ctx context.Context, froms []string, tree string) (map[string]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = d.outf.SetReadDeadline(time.Now()) })
	defer stop()
	var req strings.Builder
	heads := map[string]string{} // "FROM TO" → FROM
	for _, from := range froms {
		if _, ok := heads[from+" "+tree]; !ok {
			heads[from+" "+tree] = from
			req.WriteString(from + " " + tree + "\n")
		}
	}
	req.WriteString(differEnd + "\n")
	if _, err := io.WriteString(d.in, req.String()); err != nil {
		return nil, err
	}
	out := map[string]string{}
	var cur string // the from tree whose diff is being read
	var text strings.Builder
	size := 0
	for {
		line, err := readLine(d.out, maxOutput-size)
		if err != nil {
			return nil, err
		}
		body := strings.TrimSuffix(line, "\n")
		if body == differEnd {
			break
		}
		if from, ok := heads[body]; ok {
			if cur != "" {
				out[cur] = text.String()
			}
			cur = from
			text.Reset()
			continue
		}
		if cur == "" {
			return nil, fmt.Errorf("git diff-tree printed %q before a diff's head", strings.TrimSpace(line))
		}
		if size += len(line); size > maxOutput {
			return nil, ErrTruncated
		}
		text.WriteString(line)
	}
	if cur != "" {
		out[cur] = text.String()
	}
	for h, from := range heads {
		if _, ok := out[from]; !ok {
			return nil, fmt.Errorf("git diff-tree printed no diff for %s", h) // a tree it could not read
		}
	}
	return out, nil
}

// stop ends the process: its input closed, it exits; with kill, at once.
func (d *treeDiffer) stop(kill bool) {
	if d.x == nil {
		return
	}
	if kill {
		reapGroup(d.x)
	}
	d.in.Close()
	d.outf.Close() // a diff-tree still printing gets EPIPE
	_ = d.x.Wait()
	reapGroup(d.x)
	d.x = nil
}

// close ends the process; a later request starts another.
func (d *treeDiffer) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.idle != nil {
		d.idle.Stop()
	}
	d.stop(false)
}

// readLine reads a line from r, its newline included, refusing one longer
// than max bytes with [ErrTruncated] as soon as it is: a generated file of
// one long line is not held whole to be refused.
func readLine(r *bufio.Reader, max int) (string, error) {
	var b []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(b)+len(frag) > max {
			return "", ErrTruncated
		}
		b = append(b, frag...)
		if err != bufio.ErrBufferFull {
			return string(b), err
		}
	}
}
