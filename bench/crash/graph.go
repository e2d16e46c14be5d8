package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentloop/agentloop/bench/internal/harness"
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
			t.id, strconv.Quote(c.Fakeagent), strconv.Quote(filepath.Join(dir, "plan-"+t.id+".txt")), c.iterations)
		files["plan-"+t.id+".txt"] = fmt.Sprintf("[*]\nappend work-%s.txt x\\n\nsleep 150ms\nappend work-%s.txt y\\n\n", t.id, t.id)
		deps := ""
		if t.after != "" {
			deps = ", depends_on: [" + t.after + "]"
		}
		fmt.Fprintf(&tasks, "  - {id: %s, title: task %s, procedure: p%s%s}\n", t.id, t.id, t.id, deps)
	}
	files["agentloop.yaml"] = yml.String()
	files["tasks.yaml"] = tasks.String()
	return harness.WriteRepo(dir, files)
}

// graphOne drives graph i to its end through random kills and checks it.
func (c *campaign) graphOne(ctx context.Context, i int, window time.Duration) Report {
	var rep Report
	dir := filepath.Join(c.Root, "graph-"+strconv.Itoa(i))
	if err := c.graphRepo(dir); err != nil {
		rep.Problems = append(rep.Problems, "set up: "+err.Error())
		return rep
	}
	defer os.RemoveAll(dir)
	sampler := c.Sample(dir)
	rng := rand.New(rand.NewPCG(rand.Uint64(), uint64(i)))
	ended := false
	for session := 0; session < 50 && !ended; session++ {
		rep.Sessions++
		ss, err := c.Run(ctx, dir, syscall.SIGKILL, harness.Moment(rng, harness.Widen(window, session)), nil, "run", "--tasks", "tasks.yaml", "-q")
		switch {
		case err != nil:
			rep.Problems = append(rep.Problems, err.Error())
			ended = true
		case ss.Killed():
			rep.Kills++
			if c.merging(dir) {
				rep.MergeKills++
			}
		default:
			if ss.Err != nil {
				rep.Problems = append(rep.Problems, fmt.Sprintf("session %d ended with %v: %s", session, ss.Err, harness.LastLine(ss.Stderr)))
			}
			ended = true
		}
	}
	if most := sampler.Stop(); most > 1 {
		rep.Problems = append(rep.Problems, fmt.Sprintf("%d agents ran at once in one task's worktree", most))
	}
	if left := c.AgentsUnder(dir); len(left) > 0 {
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
