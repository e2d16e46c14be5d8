// Command crash is agentloop's crash campaign: it starts loops of a scripted
// agent in git repositories, SIGKILLs agentloop at a uniformly random moment of
// each session, resumes, and repeats until every run has ended; then it checks
// what a crash must never break:
//
//   - every state file and every events.jsonl line parses;
//
//   - no iteration is lost or counted twice: the state's iteration count, the
//     "iteration finished" events and the iteration folders agree, with one
//     event per iteration;
//
//   - the git checkpoint refs of every recorded iteration exist;
//
//   - no agent of a killed session survives it or runs beside a resumed one
//     (the campaign samples the running agents while it works);
//
//   - the final tree is the one the recorded iterations produced: each
//     iteration appends two lines with a pause between them, so an iteration
//     cut in the middle and not started again from its start checkpoint leaves
//     a trace;
//
//   - with -ledger, the spend ledger every run shares (internal/ledger, kept
//     by a budgets: section in the campaign's user configuration; its agent
//     reports a cost for each iteration it ends) equals each run's recorded
//     spend once the run has ended: nothing counted twice, nothing lost, no
//     reservation settled twice, settled without its reservation, or left
//     open. With -graphs too, each graph's tasks (several at once in one
//     process, -parallel graphs at once) charge their agent, a reviewer and,
//     for one task, a fallback agent; the ledger must equal every task's
//     recorded spend (its report and the graph's outcome).
//
// The moments of the kills are drawn from a seed, printed first (and in go
// test's log): -seed, or $AGENTLOOP_CAMPAIGN_SEED (for go test too), draws the
// same moments again; what a moment hits still varies with the machine.
//
//	go run ./bench/crash [-runs 300] [-iterations 4] [-parallel 2] [-ledger] [-graphs M] [-seed S]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentloop/agentloop/bench/internal/harness"
)

func main() {
	runs := flag.Int("runs", 300, "runs to start")
	iterations := flag.Int("iterations", 4, "iterations per run")
	parallel := flag.Int("parallel", 2, "runs at once")
	window := flag.Duration("window", 0, "a run's first session is killed at a uniformly random moment in [0, window), each later one in a window a quarter longer; 0: the time of a whole run without kills, measured first")
	graphs := flag.Int("graphs", 0, "task graphs (4 tasks, --parallel 2) to run after the single runs, -parallel at a time")
	withLedger := flag.Bool("ledger", false, "keep the shared spend ledger (its agent reports a cost) and check it against each run's recorded spend")
	seed := flag.Uint64("seed", 0, "the seed of the kills' moments; 0: $"+harness.SeedEnv+", or else the clock's")
	flag.Parse()
	if *seed == 0 {
		s, err := harness.Seed(os.Getenv, uint64(time.Now().UnixNano()))
		if err != nil {
			fmt.Fprintln(os.Stderr, "crash:", err)
			os.Exit(2)
		}
		*seed = s
	}
	c, err := newCampaign(*seed, *iterations, *window, *withLedger)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash:", err)
		os.Exit(1)
	}
	defer c.Close()
	c.progress = os.Stderr
	fmt.Printf("seed %d, first kill window %s\n", c.seed, c.window.Round(time.Millisecond))
	rep := c.run(context.Background(), *runs, *parallel)
	fmt.Print(rep)
	bad := rep.Anomalies
	if *graphs > 0 {
		g := c.graphs(context.Background(), *graphs, *parallel)
		fmt.Print("graphs: ", g)
		bad += g.Anomalies
	}
	if bad > 0 {
		c.Close() // os.Exit skips the deferred one
		os.Exit(1)
	}
}

// Report is what a campaign found.
type Report struct {
	Seed                              uint64 // the seed of the kills' moments
	Runs, Sessions, Kills, Iterations int
	MergeKills                        int // task graphs: kills after every task ended, before all were merged
	MaxConcurrent                     int // most agents seen at once for one run
	Window                            time.Duration
	Unfinished                        int // runs still going after 50 sessions (not an anomaly: too many kills)
	Anomalies                         int
	Problems                          []string
	// With -ledger: the ledger's settlements of the runs, those with a
	// reviewer's charge, and by the provider of the agent charged (a
	// fallback's is its own).
	Settled, Reviewed int
	Agents            map[string]int
}

// add counts what the ledger holds of a run or graph.
func (r *Report) add(t ledgerTally) {
	r.Settled += t.settled
	r.Reviewed += t.reviewed
	for p, n := range t.agents {
		if r.Agents == nil {
			r.Agents = map[string]int{}
		}
		r.Agents[p] += n
	}
}

// merge adds o's counts and problems, each named by what of.
func (r *Report) merge(o Report, of string) {
	r.Sessions += o.Sessions
	r.Kills += o.Kills
	r.MergeKills += o.MergeKills
	r.Iterations += o.Iterations
	r.Unfinished += o.Unfinished
	r.MaxConcurrent = max(r.MaxConcurrent, o.MaxConcurrent)
	r.add(ledgerTally{settled: o.Settled, reviewed: o.Reviewed, agents: o.Agents})
	r.Anomalies += len(o.Problems)
	for _, p := range o.Problems {
		r.Problems = append(r.Problems, of+": "+p)
	}
}

func (r Report) String() string {
	s := fmt.Sprintf("seed %d, runs %d, sessions %d, kills %d, iterations recorded %d, first kill window %s, unfinished after 50 sessions %d, anomalies %d\n", r.Seed, r.Runs, r.Sessions, r.Kills, r.Iterations, r.Window.Round(time.Millisecond), r.Unfinished, r.Anomalies)
	if r.MergeKills > 0 {
		s += fmt.Sprintf("  kills in the merge phase %d\n", r.MergeKills)
	}
	if r.Settled > 0 {
		s += fmt.Sprintf("  ledger: %d settlements, %d with a reviewer's charge, agents charged %v\n", r.Settled, r.Reviewed, r.Agents)
	}
	for _, p := range r.Problems {
		s += "  " + p + "\n"
	}
	return s
}

type campaign struct {
	*harness.Bin
	seed       uint64 // the kills' moments are drawn from it
	iterations int
	window     time.Duration
	progress   io.Writer // a line per run or graph that ends; nil: none
	// env is added to every session's environment: with the ledger, the
	// user's folders (configuration and state) of the campaign.
	env    []string
	ledger string // the ledger file, "" without -ledger
}

// newCampaign builds agentloop and the scripted agent into a temporary
// folder; the kills' moments are drawn from seed.
func newCampaign(seed uint64, iterations int, window time.Duration, withLedger bool) (*campaign, error) {
	bin, err := harness.Build("agentloop-crash-")
	if err != nil {
		return nil, err
	}
	c := &campaign{Bin: bin, seed: seed, iterations: iterations, window: window}
	if withLedger {
		if err := c.keepLedger(); err != nil {
			c.Close()
			return nil, err
		}
	}
	if c.window == 0 {
		if c.window, err = c.Calibrate(c.repo, "run", "-q"); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

func (c *campaign) run(ctx context.Context, runs, parallel int) Report {
	var (
		mu   sync.Mutex
		rep  = Report{Seed: c.seed, Runs: runs, Window: c.window}
		done int
	)
	harness.Each(runs, parallel, func(i int) {
		r := c.one(ctx, i)
		mu.Lock()
		defer mu.Unlock()
		rep.merge(r, fmt.Sprintf("run %d", i))
		done++
		if c.progress != nil {
			fmt.Fprintf(c.progress, "run %d ended (%d/%d): %d sessions, %d kills, %d iterations; so far %d sessions, %d kills, %d anomalies\n",
				i, done, runs, r.Sessions, r.Kills, r.Iterations, rep.Sessions, rep.Kills, rep.Anomalies)
			for _, p := range r.Problems {
				fmt.Fprintf(c.progress, "  run %d: %s\n", i, p)
			}
		}
	})
	return rep
}

// graphs runs n task graphs, parallel at a time, each killed at random
// moments and run again until it ends. A graph's first kill window is two
// runs' window.
func (c *campaign) graphs(ctx context.Context, n, parallel int) Report {
	var (
		mu   sync.Mutex
		rep  = Report{Seed: c.seed, Runs: n, Window: 2 * c.window}
		done int
	)
	harness.Each(n, parallel, func(i int) {
		r := c.graphOne(ctx, i, rep.Window)
		mu.Lock()
		defer mu.Unlock()
		rep.merge(r, fmt.Sprintf("graph %d", i))
		done++
		if c.progress != nil {
			fmt.Fprintf(c.progress, "graph %d ended (%d/%d): %d sessions, %d kills (%d merging); so far %d sessions, %d kills, %d anomalies\n", i, done, n, r.Sessions, r.Kills, r.MergeKills, rep.Sessions, rep.Kills, rep.Anomalies)
			for _, p := range r.Problems {
				fmt.Fprintf(c.progress, "  graph %d: %s\n", i, p)
			}
		}
	})
	return rep
}

// one drives run i to its end through random kills and checks it.
func (c *campaign) one(ctx context.Context, i int) Report {
	var rep Report
	dir := filepath.Join(c.Root, "run-"+strconv.Itoa(i))
	if err := c.repo(dir); err != nil {
		rep.Problems = append(rep.Problems, "set up: "+err.Error())
		return rep
	}
	defer os.RemoveAll(dir)
	sampler := c.Sample(dir) // the agents of this run while it works
	rng := rand.New(rand.NewPCG(c.seed, uint64(i)))
	args := []string{"run", "-q"}
	for session := 0; session < 50; session++ {
		rep.Sessions++
		ss, err := c.Run(ctx, dir, syscall.SIGKILL, harness.Moment(rng, harness.Widen(c.window, session)), c.env, args...)
		if err != nil {
			rep.Problems = append(rep.Problems, err.Error())
			break
		}
		killed := ss.Killed()
		if killed {
			rep.Kills++
		}
		if killed && runEnded(dir) {
			break // killed after the run's end was saved
		}
		if !killed {
			if ss.Err != nil {
				rep.Problems = append(rep.Problems, fmt.Sprintf("session %d ended with %v: %s", session, ss.Err, harness.LastLine(ss.Stderr)))
			}
			break
		}
		// A session killed before it saved the run's first state left no run:
		// a person runs it again.
		args = []string{"run", "-q"}
		if _, err := os.Stat(filepath.Join(dir, ".agentloop", "state", "build.json")); err == nil {
			args = []string{"resume", "build", "-q"}
		}
	}
	rep.MaxConcurrent = sampler.Stop()
	if rep.MaxConcurrent > 1 {
		rep.Problems = append(rep.Problems, fmt.Sprintf("%d agents ran at once", rep.MaxConcurrent))
	}
	if left := c.Agents(dir); len(left) > 0 {
		rep.Problems = append(rep.Problems, fmt.Sprintf("agents left running after the run ended: %v", left))
		for _, pid := range left {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	}
	if !runEnded(dir) {
		rep.Unfinished = 1
		return rep
	}
	n, problems := c.check(dir)
	rep.Iterations = n
	rep.Problems = append(rep.Problems, problems...)
	if c.ledger != "" {
		run := dir + " build"
		t, problems := c.checkLedger(dir, func(r string) bool { return r == run }, "build")
		rep.add(t)
		rep.Problems = append(rep.Problems, problems...)
	}
	return rep
}

// repo makes a git repository with the campaign's procedure. With the
// ledger the agent ends each iteration with a transcript that reports its
// cost.
func (c *campaign) repo(dir string) error {
	plan, format := "[*]\nappend work.txt x\\n\nsleep 150ms\nappend work.txt y\\n\n", ""
	if c.ledger != "" {
		plan += "printfile " + costFixture() + "\n"
		format = ", format: claude-stream-json"
	}
	return harness.WriteRepo(dir, map[string]string{
		".gitignore": ".agentloop/\n.fa/\n",
		"plan.txt":   plan,
		"agentloop.yaml": fmt.Sprintf("default: build\nprocedures:\n  build:\n    agent: {cmd: [%s]%s, env: {FAKEAGENT_PLAN: plan.txt, FAKEAGENT_DIR: .fa}}\n"+
			"    limits: {max_iterations: %d}\n", strconv.Quote(c.Fakeagent), format, c.iterations),
	})
}

// check verifies a finished run's files and returns its recorded iterations.
func (c *campaign) check(dir string) (int, []string) {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	b, err := os.ReadFile(filepath.Join(dir, ".agentloop", "state", "build.json"))
	if err != nil {
		bad("state: %v", err)
		return 0, problems
	}
	var st struct {
		Status          string `json:"status"`
		RunID           string `json:"run_id"`
		Iteration       int    `json:"iteration"`
		TotalIterations int    `json:"total_iterations"`
		Attempts        int    `json:"attempts"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		bad("state does not parse: %v", err)
		return 0, problems
	}
	if st.Status != "completed" {
		bad("status %q, want completed", st.Status)
	}
	if st.TotalIterations != c.iterations {
		bad("%d iterations recorded, want %d", st.TotalIterations, c.iterations)
	}
	runDir := filepath.Join(dir, ".agentloop", "runs", "build", st.RunID)
	finished := map[int]int{}
	f, err := os.Open(filepath.Join(runDir, "events.jsonl"))
	if err != nil {
		bad("events: %v", err)
	} else {
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for line := 1; sc.Scan(); line++ {
			var ev struct {
				Type      string `json:"type"`
				Iteration int    `json:"iteration"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				bad("events.jsonl:%d does not parse: %v", line, err)
				continue
			}
			if ev.Type == "iteration_finished" {
				finished[ev.Iteration]++
			}
		}
		f.Close()
	}
	for n := 1; n <= st.TotalIterations; n++ {
		if finished[n] != 1 {
			bad("iteration %d finished %d times in events.jsonl", n, finished[n])
		}
	}
	// Each recorded iteration's attempt has its folder and checkpoint, named
	// by the attempt's number in the run (cut attempts take numbers too).
	h, err := harness.ReadHistory(filepath.Join(runDir, "history.jsonl"))
	if err != nil {
		bad("history: %v", err)
	}
	if len(h.Records) < st.TotalIterations {
		bad("history.jsonl holds %d records, the state %d iterations", len(h.Records), st.TotalIterations)
	}
	for i := 1; i <= st.TotalIterations; i++ {
		seq := h.Records[i].Seq
		if _, err := os.Stat(filepath.Join(runDir, fmt.Sprintf("iter-%03d", seq))); err != nil {
			bad("iteration %d (attempt %d) has no folder", i, seq)
		}
		ref := fmt.Sprintf("refs/agentloop/build/%s/iter-%d", st.RunID, seq)
		cmd := exec.Command("git", "rev-parse", "-q", "--verify", ref)
		cmd.Dir = dir
		if err := cmd.Run(); err != nil {
			bad("checkpoint %s of iteration %d is missing", ref, i)
		}
	}
	if len(finished) != st.TotalIterations {
		bad("%d iterations finished in events.jsonl, the state records %d", len(finished), st.TotalIterations)
	}
	work, _ := os.ReadFile(filepath.Join(dir, "work.txt"))
	if why := workDone(string(work), st.TotalIterations, st.Attempts); why != "" {
		bad("work.txt is %q: %s", work, why)
	}
	return st.TotalIterations, problems
}

// runEnded reports whether the run's saved state says it has ended.
func runEnded(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, ".agentloop", "state", "build.json"))
	if err != nil {
		return false
	}
	var st struct {
		Status string `json:"status"`
	}
	return json.Unmarshal(b, &st) == nil && st.Status != "running" && st.Status != "interrupted"
}

// workDone says what is wrong with work, the file the scripted agent appends
// "x\n", then "y\n" to in each attempt, after iterations recorded of
// attempts made ("" when nothing): a resume keeps in the tree what an attempt
// a stop cut had written (the person's tree is never reverted), so each cut
// attempt leaves a part of its "x\ny\n" ("", "x\n" or all of it) and the
// recorded iterations their whole one, in order. attempts 0: not known, no
// bound on the cut ones.
func workDone(work string, iterations, attempts int) string {
	if work != "" && !strings.HasSuffix(work, "\n") {
		return "a line cut short"
	}
	units, whole := 0, 0
	prev := ""
	for _, l := range strings.Split(strings.TrimSuffix(work, "\n"), "\n") {
		switch {
		case work == "":
		case l == "x":
			units++
		case l == "y" && prev == "x":
			whole++
		default:
			return fmt.Sprintf("line %q where an attempt appends x, then y", l)
		}
		prev = l
	}
	switch {
	case whole < iterations:
		return fmt.Sprintf("%d whole attempts' work for %d iterations recorded: an iteration's work was lost", whole, iterations)
	case attempts > 0 && units > attempts:
		return fmt.Sprintf("%d attempts' work for %d attempts made: an attempt's work was done twice", units, attempts)
	case attempts > 0 && attempts == iterations && units != iterations:
		return fmt.Sprintf("%d attempts' work for %d iterations, none cut: an iteration's work was done twice", units, iterations)
	}
	return ""
}
