package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
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
// task's agent appends two lines per iteration to its own file. With the
// ledger each iteration costs: the agent's transcript reports $0.0421, a
// reviewer's $0.03 after it, and task d's agent hits its account's usage
// limit on its first call, so its iterations run on its fallback agent (a
// codex transcript: tokens, no cost). The reviewer asks for changes twice,
// times, then approves.
func (c *campaign) graphRepo(dir string) error {
	var yml, tasks strings.Builder
	files := map[string]string{".gitignore": ".agentloop/\n.fa/\n.rev/\n.fb/\n"}
	work := func(t string) string {
		return fmt.Sprintf("append work-%s.txt x\\n\nsleep 150ms\nappend work-%s.txt y\\n\n", t, t)
	}
	if c.ledger != "" {
		files["review.txt"] = reviewPlan
		files["plan-fb.txt"] = work("d") + "printfile " + filepath.Join(filepath.Dir(costFixture()), "codex-ok.jsonl") + "\n"
		fmt.Fprintf(&yml, "agents:\n  rev: {preset: claude, cmd: [%s], env: {FAKEAGENT_PLAN: %s, FAKEAGENT_DIR: .rev}}\n", strconv.Quote(c.Fakeagent), strconv.Quote(filepath.Join(dir, "review.txt")))
		fmt.Fprintf(&yml, "  fb: {preset: codex, cmd: [%s], env: {FAKEAGENT_PLAN: %s, FAKEAGENT_DIR: .fb}}\n", strconv.Quote(c.Fakeagent), strconv.Quote(filepath.Join(dir, "plan-fb.txt")))
	}
	yml.WriteString("procedures:\n")
	tasks.WriteString("parallel: 2\ntasks:\n")
	for _, t := range graphTasks {
		plan, agent, env, more := work(t.id), "", "", ""
		if c.ledger != "" {
			plan += "printfile " + costFixture() + "\n"
			// The tasks share the campaign's account but for task d, whose
			// usage window is its graph's alone and holds no other task back.
			account := "crash-campaign"
			if t.id == "d" {
				account = "crash-" + dir
				plan = "[1]\nprintfile " + filepath.Join(filepath.Dir(costFixture()), "claude-ratelimit.jsonl") + "\nexit 1\n[*]\n" + plan
				more = "    fallback: [fb]\n"
			}
			agent, env = "preset: claude, ", ", ANTHROPIC_API_KEY: "+strconv.Quote(account)
			more += "    reviewer: rev\n"
		}
		fmt.Fprintf(&yml, "  p%s:\n    agent: {%scmd: [%s], env: {FAKEAGENT_PLAN: %s, FAKEAGENT_DIR: .fa%s}}\n%s    limits: {max_iterations: %d}\n",
			t.id, agent, strconv.Quote(c.Fakeagent), strconv.Quote(filepath.Join(dir, "plan-"+t.id+".txt")), env, more, c.iterations)
		files["plan-"+t.id+".txt"] = plan
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
	rng := rand.New(rand.NewPCG(c.seed, 1<<32+uint64(i)))
	ended := false
	for session := 0; session < 50 && !ended; session++ {
		rep.Sessions++
		ss, err := c.Run(ctx, dir, syscall.SIGKILL, harness.Moment(rng, harness.Widen(window, session)), c.env, "run", "--tasks", "tasks.yaml", "-q")
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
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	}
	if !ended {
		rep.Unfinished = 1
		return rep
	}
	t, problems := c.checkGraph(dir)
	rep.add(t)
	rep.Problems = append(rep.Problems, problems...)
	return rep
}

// graphState is what the campaign reads of a graph's saved state.
type graphState struct {
	Outcomes map[string]struct {
		State      string `json:"state"`
		Iterations int    `json:"iterations"`
		Usage      struct {
			CostUSD float64 `json:"cost_usd"`
		} `json:"usage"`
	} `json:"outcomes"`
	Merged []string `json:"merged"`
}

// readGraph reads the saved state of the graph in dir.
func readGraph(dir string) (graphState, error) {
	var gs graphState
	b, err := os.ReadFile(filepath.Join(dir, ".agentloop", "graphs", "tasks.json"))
	if err != nil {
		return gs, err
	}
	return gs, json.Unmarshal(b, &gs)
}

// merging reports whether the graph's saved state has every task finished and
// not every one merged: a kill then landed in the merge phase.
func (c *campaign) merging(dir string) bool {
	gs, err := readGraph(dir)
	if err != nil || len(gs.Merged) >= len(graphTasks) {
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
// well, and every task's work is on the branch exactly once; with the
// ledger, the ledger holds what each task recorded spent (its report and
// the graph's outcome), nothing settled twice or left open.
func (c *campaign) checkGraph(dir string) (ledgerTally, []string) {
	var problems []string
	gs, err := readGraph(dir)
	if err != nil {
		return ledgerTally{}, append(problems, fmt.Sprintf("graph state unreadable: %v", err))
	}
	var names []string
	for _, t := range graphTasks {
		o := gs.Outcomes[t.id]
		if o.State != "completed" && o.State != "succeeded" {
			problems = append(problems, fmt.Sprintf("task %s ended %q", t.id, o.State))
		}
		// A task ends at its last iteration, or before it when its reviewer
		// approves (with the ledger).
		if o.Iterations < 1 || o.Iterations > c.iterations || (c.ledger == "" && o.Iterations != c.iterations) {
			problems = append(problems, fmt.Sprintf("task %s recorded %d iterations, want %d", t.id, o.Iterations, c.iterations))
		}
		got, _ := os.ReadFile(filepath.Join(dir, "work-"+t.id+".txt"))
		if why := workDone(string(got), o.Iterations, taskAttempts(dir, t.id)); why != "" {
			problems = append(problems, fmt.Sprintf("work-%s.txt on the branch is %q: %s: a task's work was lost or merged twice", t.id, got, why))
		}
		names = append(names, "tasks-"+t.id)
	}
	if c.ledger == "" {
		return ledgerTally{}, problems
	}
	// The tasks run in worktrees under the graph's repository.
	t, more := c.checkLedger(dir, func(r string) bool { return strings.HasPrefix(r, dir+"/") || strings.HasPrefix(r, dir+" ") }, names...)
	problems = append(problems, more...)
	for _, tk := range graphTasks {
		if got, want := t.spent["tasks-"+tk.id], gs.Outcomes[tk.id].Usage.CostUSD; math.Abs(got-want) > 1e-9 {
			problems = append(problems, fmt.Sprintf("the ledger holds $%.4f spent by task %s, the graph's outcome $%.4f", got, tk.id, want))
		}
	}
	return t, problems
}

// taskAttempts is the number of agent attempts task id's run made, from its
// saved state (0: not known).
func taskAttempts(dir, id string) int {
	b, err := os.ReadFile(filepath.Join(dir, ".agentloop", "state", "tasks-"+id+".json"))
	if err != nil {
		return 0
	}
	var st struct {
		Attempts int `json:"attempts"`
	}
	if json.Unmarshal(b, &st) != nil {
		return 0
	}
	return st.Attempts
}
