package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// graphTasks is the campaign's task graph: two independent chains, run two at
// a time, so kills land in tasks, between them and in the merge phase.
var graphTasks = []struct{ id, after string }{{"a", ""}, {"b", ""}, {"c", "a"}, {"d", "b"}}

// graphRepo makes a repository whose task graph has a procedure per task; each
// task's agent appends two lines per iteration to its own file.
func (c *campaign) graphRepo(dir string) error {
	var yml, tasks strings.Builder
	yml.WriteString("procedures:\n")
	tasks.WriteString("parallel: 2\ntasks:\n")
	files := map[string]string{".gitignore": ".agentloop/\n.fa/\n"}
	for _, t := range graphTasks {
		fmt.Fprintf(&yml, "  p%s:\n    agent: {cmd: [%s], env: {FAKEAGENT_PLAN: %s, FAKEAGENT_DIR: .fa}}\n    limits: {max_iterations: %d}\n",
			t.id, strconv.Quote(c.fakeagent), strconv.Quote(filepath.Join(dir, "plan-"+t.id+".txt")), c.iterations)
		files["plan-"+t.id+".txt"] = fmt.Sprintf("[*]\nappend work-%s.txt x\\n\nsleep 150ms\nappend work-%s.txt y\\n\n", t.id, t.id)
		deps := ""
		if t.after != "" {
			deps = ", depends_on: [" + t.after + "]"
		}
		fmt.Fprintf(&tasks, "  - {id: %s, title: task %s, procedure: p%s%s}\n", t.id, t.id, t.id, deps)
	}
	files["agentloop.yaml"] = yml.String()
	files["tasks.yaml"] = tasks.String()
	return c.writeRepo(dir, files)
}

// graphOne drives graph i to its end through random kills and checks it.
func (c *campaign) graphOne(ctx context.Context, i int, window time.Duration) Report {
	var rep Report
	dir := filepath.Join(c.root, "graph-"+strconv.Itoa(i))
	if err := c.graphRepo(dir); err != nil {
		rep.Problems = append(rep.Problems, "set up: "+err.Error())
		return rep
	}
	defer os.RemoveAll(dir)
	var mu sync.Mutex
	most := 0
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				for _, n := range c.agentsPerDir(dir) {
					mu.Lock()
					most = max(most, n)
					mu.Unlock()
				}
			}
		}
	}()
	ended := false
	for session := 0; session < 50 && !ended; session++ {
		rep.Sessions++
		killed, err, stderr := c.session(ctx, dir, widen(window, session), "run", "--tasks", "tasks.yaml", "-q")
		switch {
		case errors.Is(err, errNotStarted):
			rep.Problems = append(rep.Problems, err.Error())
			ended = true
		case killed:
			rep.Kills++
			if c.merging(dir) {
				rep.MergeKills++
			}
		default:
			if err != nil {
				rep.Problems = append(rep.Problems, fmt.Sprintf("session %d ended with %v: %s", session, err, lastLine(stderr)))
			}
			ended = true
		}
	}
	close(stop)
	<-sampled
	if most > 1 {
		rep.Problems = append(rep.Problems, fmt.Sprintf("%d agents ran at once in one task's worktree", most))
	}
	if left := c.agentsUnder(dir); len(left) > 0 {
		rep.Problems = append(rep.Problems, fmt.Sprintf("agents left running after the graph ended: %v", left))
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if !ended {
		rep.Unfinished = 1
		return rep
	}
	rep.Problems = append(rep.Problems, c.checkGraph(dir)...)
	return rep
}

// merging reports whether the graph's saved state has every task finished and
// not every one merged: a kill then landed in the merge phase.
func (c *campaign) merging(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, ".agentloop", "graphs", "tasks.json"))
	var gs struct {
		Outcomes map[string]struct {
			State string `json:"state"`
		} `json:"outcomes"`
		Merged []string `json:"merged"`
	}
	if err != nil || json.Unmarshal(b, &gs) != nil || len(gs.Merged) >= len(graphTasks) {
		return false
	}
	for _, t := range graphTasks {
		if s := gs.Outcomes[t.id].State; s != "completed" && s != "succeeded" {
			return false
		}
	}
	return true
}

// checkGraph verifies a finished graph: its state parses, every task ended
// well, and every task's work is on the branch exactly once.
func (c *campaign) checkGraph(dir string) []string {
	var problems []string
	b, err := os.ReadFile(filepath.Join(dir, ".agentloop", "graphs", "tasks.json"))
	var gs struct {
		Outcomes map[string]struct {
			State string `json:"state"`
		} `json:"outcomes"`
	}
	if err != nil || json.Unmarshal(b, &gs) != nil {
		return append(problems, fmt.Sprintf("graph state unreadable: %v", err))
	}
	want := strings.Repeat("x\ny\n", c.iterations)
	for _, t := range graphTasks {
		if s := gs.Outcomes[t.id].State; s != "completed" && s != "succeeded" {
			problems = append(problems, fmt.Sprintf("task %s ended %q", t.id, s))
		}
		got, _ := os.ReadFile(filepath.Join(dir, "work-"+t.id+".txt"))
		if string(got) != want {
			problems = append(problems, fmt.Sprintf("work-%s.txt on the branch is %q, want %q: a task's work was lost or merged twice", t.id, got, want))
		}
	}
	return problems
}

// agentsUnder lists the running scripted agents whose working directory is in dir.
func (c *campaign) agentsUnder(dir string) []int {
	var out []int
	for pid, cwd := range c.agentCwds() {
		if cwd == dir || strings.HasPrefix(cwd, dir+"/") {
			out = append(out, pid)
		}
	}
	return out
}

// agentsPerDir counts the running scripted agents under dir by working directory.
func (c *campaign) agentsPerDir(dir string) map[string]int {
	n := map[string]int{}
	for _, cwd := range c.agentCwds() {
		if cwd == dir || strings.HasPrefix(cwd, dir+"/") {
			n[cwd]++
		}
	}
	return n
}

// agentCwds maps each live scripted agent to its working directory.
func (c *campaign) agentCwds() map[int]string {
	entries, _ := os.ReadDir("/proc")
	out := map[int]string{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err != nil || exe != c.fakeagent {
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
