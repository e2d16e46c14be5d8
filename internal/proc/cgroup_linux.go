package proc

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupPrefix names the cgroup of one [Run] under agentloop's own cgroup; the
// run's marker follows it.
const cgroupPrefix = "agentloop-"

// cgroup is the cgroup (v2) of one Run: its process starts in it, every
// process it starts stays in it whatever it does to its environment, process
// group or session, and killing the cgroup kills them all.
type cgroup struct {
	dir string
	fd  int
}

// cgroupRoot is the directory the runs' cgroups are made in (agentloop's own
// cgroup; "" when there is none), learned once per program, when the stale
// cgroups of agentloop processes that are gone are removed too: not once per
// run, where it read two /proc files and every run cgroup on the machine.
func (g *Groups) cgroupRoot() string {
	if g == nil {
		base := cgroupBase()
		if base != "" {
			removeStaleCgroups(base)
		}
		return base
	}
	r := g.top()
	r.cgOnce.Do(func() {
		if r.cgBase = cgroupBase(); r.cgBase != "" {
			removeStaleCgroups(r.cgBase)
		}
	})
	return r.cgBase
}

// newCgroup makes the cgroup of the run with this marker under base
// ([Groups.cgroupRoot]); nil when the system gives none (no cgroup v2
// mounted, or no right to make one there).
func newCgroup(base, marker string) *cgroup {
	if base == "" {
		return nil
	}
	dir := filepath.Join(base, cgroupPrefix+marker)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		_ = os.Remove(dir)
		return nil
	}
	return &cgroup{dir: dir, fd: fd}
}

// attach makes cmd start in the cgroup (clone3 with CLONE_INTO_CGROUP, so no
// process of the run ever runs outside it).
func (c *cgroup) attach(cmd *exec.Cmd) {
	if c == nil {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.UseCgroupFD = true
	cmd.SysProcAttr.CgroupFD = c.fd
}

// path is the cgroup's directory, "" for none.
func (c *cgroup) path() string {
	if c == nil {
		return ""
	}
	return c.dir
}

// end kills every process left in the cgroup, waits up to a second for them
// to be gone and removes it. It returns how many of them were running outside
// the process group group (the run's, which was ended before).
func (c *cgroup) end(group int) int {
	if c == nil {
		return 0
	}
	_ = syscall.Close(c.fd)
	return killCgroup(c.dir, true, group)
}

// killCgroup kills what is in the cgroup at dir and removes it (a run's cgroup:
// its name must start with cgroupPrefix). With reapOrphans, the orphans this
// process adopted as subreaper are reaped (not while os/exec may still wait
// for a child in it). It returns how many processes it found running outside
// the process group group: those that left the run's group, not those dying
// of its end.
func killCgroup(dir string, reapOrphans bool, group int) int {
	if !strings.HasPrefix(filepath.Base(dir), cgroupPrefix) {
		return 0
	}
	pids := cgroupProcs(dir)
	if len(pids) == 0 {
		_ = os.Remove(dir)
		return 0
	}
	outside := 0
	for _, pid := range pids {
		// fields: state, ppid, pgrp
		if f, err := stat(pid); err == nil && len(f) > 2 && f[0] != "Z" && f[0] != "X" && f[2] != strconv.Itoa(group) {
			outside++
		}
	}
	// cgroup.kill (Linux 5.14) kills every process in it at once, those forking
	// included; without it, kill what is listed until nothing is.
	if err := os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0); err != nil {
		for range 20 {
			left := cgroupProcs(dir)
			if len(left) == 0 {
				break
			}
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	self := os.Getpid()
	for _, pid := range pids {
		if !reapOrphans {
			break
		}
		if fields, err := stat(pid); err == nil && len(fields) > 1 && fields[1] == strconv.Itoa(self) {
			go reap(pid) // an orphan agentloop adopted as subreaper, not a child os/exec waits for
		}
	}
	deadline := time.Now().Add(time.Second)
	for {
		err := os.Remove(dir)
		if err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return outside
}

// killCgroupsOf kills what is in the run cgroups of the agentloop process pid
// (gone: see [Watchdog]) under this process's cgroup, and removes them.
func killCgroupsOf(pid int) {
	for _, dir := range cgroupsOf(cgroupBase(), pid) {
		killCgroup(dir, false, 0)
	}
}

// cgroupsOf lists the run cgroups of the agentloop process pid under base.
func cgroupsOf(base string, pid int) []string {
	entries, err := os.ReadDir(base)
	if base == "" || err != nil {
		return nil
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), cgroupPrefix+strconv.Itoa(pid)+"-") {
			dirs = append(dirs, filepath.Join(base, e.Name()))
		}
	}
	return dirs
}

// removeStaleCgroups ends the run cgroups under base that an agentloop
// process which is gone left behind (killed before it could end them): what
// still runs in one (an agent of a killed worker) is killed, and the cgroup
// removed.
func removeStaleCgroups(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), cgroupPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		owner, _, _ := strings.Cut(rest, "-")
		if pid, err := strconv.Atoi(owner); err == nil && pid > 0 && !Alive(pid) {
			killCgroup(filepath.Join(base, e.Name()), false, 0)
		}
	}
}

// cgroupProcs lists the processes in the cgroup at dir and its children.
func cgroupProcs(dir string) []int {
	var out []int
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(filepath.Join(p, "cgroup.procs"))
		if err != nil {
			return nil
		}
		for f := range bytes.FieldsSeq(b) {
			if pid, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, pid)
			}
		}
		return nil
	})
	return out
}
