// Package harness is what agentloop's fault campaigns share (bench/crash, the
// runs killed at random moments, and bench/handoff, the hand-offs between
// people and the loop): the agentloop and scripted-agent binaries they build,
// the git repositories they make, sessions signalled at a uniformly random
// moment of a kill window that widens with each session signalled, and the
// scripted agents they find running.
package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Bin is a temporary folder with agentloop and the scripted agent
// (internal/fakeagent) built into it.
type Bin struct {
	Root      string // the temporary folder; repositories go under it too
	Agentloop string
	Fakeagent string
}

// Build builds agentloop and the scripted agent into a new temporary folder
// named with prefix.
func Build(prefix string) (*Bin, error) {
	root, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	b := &Bin{Root: root, Agentloop: filepath.Join(root, "bin", "agentloop"), Fakeagent: filepath.Join(root, "bin", "fakeagent")}
	for pkg, out := range map[string]string{"./cmd/agentloop": b.Agentloop, "./internal/fakeagent/cmd/fakeagent": b.Fakeagent} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = ModuleRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Close()
			return nil, fmt.Errorf("build %s: %v\n%s", pkg, err, out)
		}
	}
	return b, nil
}

// Close removes the folder and everything under it.
func (b *Bin) Close() { _ = os.RemoveAll(b.Root) }

// ModuleRoot is the repository's top folder, found from the working directory.
func ModuleRoot() string {
	dir, _ := os.Getwd()
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
	}
	return dir
}

// WriteRepo writes files into a new git repository at dir (branch main) and
// commits them.
func WriteRepo(dir string, files map[string]string) error {
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "start"}} {
		if _, err := Git(dir, args...); err != nil {
			return err
		}
	}
	return nil
}

// Git runs git in dir as the campaign's user and returns its output, trimmed.
func Git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-c", "user.name=c", "-c", "user.email=c@c", "-c", "gc.auto=0"}, args...)...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// Widen is the kill window of a run's session n (from 0): a quarter longer for
// each session signalled before it, so that a run ends even when the machine
// has grown slower than when the window was measured.
func Widen(window time.Duration, n int) time.Duration {
	for range n {
		window += window / 4
	}
	return window
}

// Calibrate runs agentloop with args in a new repository to its end and returns the kill
// window it suggests: half again as long as the session took, since a session
// signalled runs the rest of its run plus its own start-up, and some sessions
// must end by themselves for runs to end. A kill at a uniformly random moment
// of it may land anywhere, start-up and shut-down included. A run that ends
// aborted (3) or escalated (4) is a measure too; an error (1, 2) is not.
// The repository is made by repo in a folder of its own, removed after.
func (b *Bin) Calibrate(repo func(dir string) error, args ...string) (time.Duration, error) {
	dir := filepath.Join(b.Root, "calibrate")
	defer os.RemoveAll(dir)
	if err := repo(dir); err != nil {
		return 0, err
	}
	start := time.Now()
	cmd := exec.Command(b.Agentloop, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); err != nil && code != 3 && code != 4 {
		return 0, fmt.Errorf("a run without kills failed: %v\n%s", err, out)
	}
	return time.Since(start) * 3 / 2, nil
}

// SeedEnv names the variable that gives a campaign the seed of its random
// draws, to draw them again (go test and go run alike).
const SeedEnv = "AGENTLOOP_CAMPAIGN_SEED"

// Seed is the seed $AGENTLOOP_CAMPAIGN_SEED holds (getenv reads it), or else
// otherwise.
func Seed(getenv func(string) string, otherwise uint64) (uint64, error) {
	v := getenv(SeedEnv)
	if v == "" {
		return otherwise, nil
	}
	s, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not a seed: give the number a campaign printed", SeedEnv, v)
	}
	return s, nil
}

// Moment is a uniformly random moment in [0, window).
func Moment(r *rand.Rand, window time.Duration) time.Duration {
	if window <= 0 {
		return 0
	}
	return time.Duration(r.Int64N(int64(window)))
}

// ErrNotStarted wraps the error of a session whose agentloop did not start.
var ErrNotStarted = errors.New("agentloop did not start")

// Session is how one agentloop process ended.
type Session struct {
	Signal   syscall.Signal // the signal sent, 0 when it ended before its moment
	Code     int            // exit code; -1 when killed by a signal
	Err      error          // the error of a process that ended by itself with a non-zero code
	Stdout   string
	Stderr   string
	Duration time.Duration
	// Stuck is set when the process did not end within the grace given after
	// a polite signal (SIGINT, SIGTERM) and was killed.
	Stuck bool
}

// Killed reports whether the session was SIGKILLed (by the campaign, or
// because it did not end after a polite signal).
func (s Session) Killed() bool { return s.Signal == syscall.SIGKILL || s.Stuck }

// StopGrace is how long a session may take to end after SIGINT or SIGTERM
// before it is killed and said stuck: long, since the machine may be loaded.
const StopGrace = 2 * time.Minute

// Run runs agentloop with args in dir. When sig is not 0, it is sent at
// moment at unless the process ends first; after SIGINT or SIGTERM the process
// gets [StopGrace] to end. env is added to the environment.
func (b *Bin) Run(ctx context.Context, dir string, sig syscall.Signal, at time.Duration, env []string, args ...string) (Session, error) {
	cmd := exec.CommandContext(ctx, b.Agentloop, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var outb, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outb, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Session{}, fmt.Errorf("%w: %w", ErrNotStarted, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var s Session
	var err error
	if sig == 0 {
		err = <-done
	} else {
		t := time.NewTimer(at)
		select {
		case err = <-done:
		case <-t.C:
			s.Signal = sig
			_ = cmd.Process.Signal(sig)
			if sig == syscall.SIGKILL {
				err = <-done
				break
			}
			g := time.NewTimer(StopGrace)
			select {
			case err = <-done:
			case <-g.C:
				s.Stuck = true
				_ = cmd.Process.Signal(syscall.SIGKILL)
				err = <-done
			}
			g.Stop()
		}
		t.Stop()
	}
	s.Duration = time.Since(start)
	s.Stdout, s.Stderr = outb.String(), errb.String()
	s.Code = cmd.ProcessState.ExitCode()
	if s.Signal == 0 && err != nil {
		s.Err = err
	}
	return s, nil
}

// AgentCwds maps each live scripted agent to its working directory.
func (b *Bin) AgentCwds() map[int]string {
	entries, _ := os.ReadDir("/proc")
	out := map[int]string{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err != nil || exe != b.Fakeagent {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil || zombie(stat) {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil {
			out[pid] = cwd
		}
	}
	return out
}

// Agents lists the running scripted agents whose working directory is dir.
func (b *Bin) Agents(dir string) []int {
	var out []int
	for pid, cwd := range b.AgentCwds() {
		if cwd == dir {
			out = append(out, pid)
		}
	}
	return out
}

// AgentsUnder lists the running scripted agents whose working directory is in dir.
func (b *Bin) AgentsUnder(dir string) []int {
	var out []int
	for pid, cwd := range b.AgentCwds() {
		if under(cwd, dir) {
			out = append(out, pid)
		}
	}
	return out
}

// AgentsPerDir counts the running scripted agents under dir by working directory.
func (b *Bin) AgentsPerDir(dir string) map[string]int {
	n := map[string]int{}
	for _, cwd := range b.AgentCwds() {
		if under(cwd, dir) {
			n[cwd]++
		}
	}
	return n
}

func under(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

func zombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// Sampler watches the scripted agents under a folder while a campaign works
// on it and keeps the most seen at once in one working directory.
type Sampler struct {
	stop, done chan struct{}
	most       int
}

// Sample starts sampling the agents under dir every 10 ms.
func (b *Bin) Sample(dir string) *Sampler {
	s := &Sampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				for _, n := range b.AgentsPerDir(dir) {
					s.most = max(s.most, n)
				}
			}
		}
	}()
	return s
}

// Stop ends the sampling and returns the most agents seen at once in one
// working directory.
func (s *Sampler) Stop() int {
	close(s.stop)
	<-s.done
	return s.most
}

// Each calls f(i) for each i in [0, n), parallel calls at a time, and
// returns once every call has returned.
func Each(n, parallel int, f func(i int)) {
	var wg sync.WaitGroup
	ids := make(chan int)
	for range max(parallel, 1) {
		wg.Go(func() {
			for i := range ids {
				f(i)
			}
		})
	}
	for i := range n {
		ids <- i
	}
	close(ids)
	wg.Wait()
}

// LastLine is the last non-empty line of s.
func LastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
