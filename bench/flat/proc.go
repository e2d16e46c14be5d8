//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// agentRun is the agentloop run under measure.
type agentRun struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	dir    string
	hist   *history
	exited chan error
}

// pause is a time agentloop was stopped.
type pause struct{ from, to time.Time }

func startRun(bin, dir string, n int) (*agentRun, error) {
	a := &agentRun{dir: dir, hist: &history{dir: dir}, exited: make(chan error, 1)}
	a.cmd = exec.Command(bin, "run", "--agent-cmd", "true", "--context", "a no-op task", "--max-iterations", strconv.Itoa(n), "-q")
	a.cmd.Dir = dir
	a.cmd.Stderr = &a.stderr
	if err := a.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { a.exited <- waitExited(a.cmd.Process.Pid) }()
	return a, nil
}

// stopAt waits until the history holds at least iterations records, stops
// agentloop (SIGSTOP) and returns its counters then.
func (a *agentRun) stopAt(iterations int) (point, error) {
	for a.hist.count() < iterations {
		select {
		case err := <-a.exited:
			return point{}, fmt.Errorf("agentloop ended before iteration %d (%v): %s", iterations, err, a.stderr.Bytes())
		case <-time.After(10 * time.Millisecond):
		}
	}
	pid := a.cmd.Process.Pid
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		return point{}, err
	}
	for {
		st, err := procState(pid)
		if err != nil {
			return point{}, err
		}
		if st == 'T' {
			break
		}
		time.Sleep(time.Millisecond)
	}
	return a.counters()
}

// resume continues agentloop after p and returns the point where its window
// starts: p's counters at the time it continues.
func (a *agentRun) resume(p point, stops *[]pause) point {
	stopped := p.at
	p.at = time.Now()
	_ = a.cmd.Process.Signal(syscall.SIGCONT)
	*stops = append(*stops, pause{from: stopped, to: p.at})
	return p
}

// finish waits for agentloop to exit and returns its last counters, read
// before it is reaped.
func (a *agentRun) finish() (point, error) {
	if err := <-a.exited; err != nil {
		return point{}, err
	}
	p, err := a.counters()
	if err != nil {
		return point{}, err
	}
	if err := a.cmd.Wait(); err != nil {
		return point{}, fmt.Errorf("agentloop run: %w\n%s", err, a.stderr.Bytes())
	}
	return p, nil
}

func (a *agentRun) counters() (point, error) {
	now := time.Now()
	pid := a.cmd.Process.Pid
	io, err := procIO(pid)
	if err != nil {
		return point{}, err
	}
	cpu, err := procCPU(pid)
	if err != nil {
		return point{}, err
	}
	p := point{at: now, iterations: a.hist.count(), io: io, cpu: cpu}
	if fi, err := os.Stat(filepath.Join(a.dir, ".agentloop", "state", "build.json")); err == nil {
		p.stateSize = fi.Size()
	}
	return p, nil
}

// history reads the run's history.jsonl as it grows.
type history struct {
	dir  string
	path string
	off  int64
	n    int
}

// count returns the iteration records the history holds so far.
func (h *history) count() int {
	if h.path == "" {
		m, _ := filepath.Glob(filepath.Join(h.dir, ".agentloop", "runs", "build", "*", "history.jsonl"))
		if len(m) == 0 {
			return 0
		}
		h.path = m[0]
	}
	f, err := os.Open(h.path)
	if err != nil {
		return h.n
	}
	defer f.Close()
	if _, err := f.Seek(h.off, 0); err != nil {
		return h.n
	}
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			break // a line not yet whole is read again next time
		}
		h.off += int64(len(line))
		if bytes.HasPrefix(line, []byte(`{"kind":"record"`)) {
			h.n++
		}
	}
	return h.n
}

// startTimes returns the start time of every iteration the history records.
func (h *history) startTimes() ([]time.Time, error) {
	h.count()
	b, err := os.ReadFile(h.path)
	if err != nil {
		return nil, fmt.Errorf("read the history: %w", err)
	}
	var out []time.Time
	for line := range bytes.SplitSeq(bytes.TrimSpace(b), []byte{'\n'}) {
		var r struct {
			Kind string `json:"kind"`
			Data struct {
				StartedAt time.Time `json:"started_at"`
			} `json:"data"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("read the history: %w", err)
		}
		if r.Kind == "record" {
			out = append(out, r.Data.StartedAt)
		}
	}
	return out, nil
}

// waitExited waits until pid has exited, leaving it to be reaped (its
// /proc/PID/io stays readable until then).
func waitExited(pid int) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("wait for agentloop: %w", err)
		}
		return nil
	}
}

type ioCounters struct{ wchar, writeBytes int64 }

// procIO reads a process's wchar and write_bytes.
func procIO(pid int) (ioCounters, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/io")
	if err != nil {
		return ioCounters{}, err
	}
	var c ioCounters
	found := 0
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		x, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		switch k {
		case "wchar":
			c.wchar, found = x, found+1
		case "write_bytes":
			c.writeBytes, found = x, found+1
		}
	}
	if found != 2 {
		return ioCounters{}, errors.New("no wchar and write_bytes in /proc/PID/io")
	}
	return c, nil
}

// procStat returns the fields of /proc/PID/stat after the command's name.
func procStat(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, errors.New("no ')' in /proc/PID/stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return nil, errors.New("short /proc/PID/stat")
	}
	return f, nil
}

// procState returns a process's state letter (T: stopped).
func procState(pid int) (byte, error) {
	f, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	return f[0][0], nil
}

// procCPU reads a process's user and system time (of its threads, not of
// its children).
func procCPU(pid int) (time.Duration, error) {
	f, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("bad times in /proc/PID/stat")
	}
	const hz = 100 // USER_HZ, the unit of these fields on Linux
	return time.Duration(utime+stime) * time.Second / hz, nil
}
