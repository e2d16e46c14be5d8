// Command ledger measures the spend ledger every loop of a user shares
// (internal/ledger) with 20 loops at once: a task graph of -tasks tasks run
// with --parallel 4 and -loops separate `agentloop run`s, each in its own
// repository, all under one daily cap in the user's configuration, against
// the scripted agent charging a fixed cost per iteration (its transcript's
// total_cost_usd).
//
//   - hard: the cap is a hard limit of -cap dollars. Every loop runs until the
//     cap refuses its next reservation. The overspend is what the ledger
//     holds spent beyond the cap, said in reservations (1.2 × the cost of an
//     iteration); the target is at most one reservation per loop. The ledger's
//     total is checked against the sum of the runs' recorded spend.
//
//   - soft: the cap has a soft limit of -cap dollars (and a hard one far
//     above). Every loop must park before an iteration (the inbox of its
//     repository lists it); one `agentloop budget approve day` must let every
//     one of them go on to its last iteration.
//
//     go run ./bench/ledger [-loops 16] [-tasks 4] [-cap 0.3] [-iterations 6] [-first USD]
//
// The ledger starts empty in each phase: the loops' first reservations are
// the rule for a ledger that knows no cost yet (budgets: first_iteration_usd,
// -first; else a tenth of the cap).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/bench/internal/harness"
)

// cost is what the scripted agent's transcript says one iteration cost.
const cost = 0.0421

// margin is the ledger's reservation rule: 1.2 × the mean iteration.
const margin = 1.2

func main() {
	loops := flag.Int("loops", 16, "separate agentloop runs")
	tasks := flag.Int("tasks", 4, "tasks of the graph (run with --parallel 4)")
	capUSD := flag.Float64("cap", 0.3, "the daily cap, in dollars (the hard limit, then the soft limit)")
	iters := flag.Int("iterations", 6, "max iterations of each loop")
	first := flag.Float64("first", 0, "budgets: first_iteration_usd (0: not given: a tenth of the cap, at most $0.50)")
	flag.Parse()
	if err := run(*loops, *tasks, *capUSD, *iters, *first); err != nil {
		fmt.Fprintln(os.Stderr, "ledger:", err)
		os.Exit(1)
	}
}

func run(loops, tasks int, capUSD float64, iters int, first float64) error {
	b, err := harness.Build("agentloop-ledger-")
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Printf("%d loops at once: a graph of %d tasks (--parallel 4) and %d runs; the scripted agent costs $%.4f an iteration (a reservation: $%.4f)\n",
		loops+tasks, tasks, loops, cost, margin*cost)
	bad := 0
	h, err := phase(b, "hard", loops, tasks, iters, first, fmt.Sprintf("{period: day, max_cost_usd: %g}", capUSD))
	if err != nil {
		return err
	}
	over := h.spent - capUSD
	perLoop := over / float64(loops+tasks) / (margin * cost)
	fmt.Printf("hard cap $%.2f: the ledger holds $%.4f spent in %d iterations; the runs recorded $%.4f; overspend $%.4f = %.2f reservations over %d loops (%.3f a loop; target ≤ 1); %d of %d loops stopped by the cap\n",
		capUSD, h.spent, h.iterations, h.recorded, over, over/(margin*cost), loops+tasks, perLoop, h.stopped, loops+tasks)
	if perLoop > 1 {
		bad++
		fmt.Println("ANOMALY: the overspend is more than one reservation per loop")
	}
	if d := h.spent - h.recorded; d > 1e-6 || d < -1e-6 {
		bad++
		fmt.Printf("ANOMALY: the ledger's spend differs from the runs' recorded spend by $%.6f\n", d)
	}
	s, err := phase(b, "soft", loops, tasks, iters, first, fmt.Sprintf("{period: day, soft_cost_usd: %g, max_cost_usd: 100}", capUSD))
	if err != nil {
		return err
	}
	fmt.Printf("soft limit $%.2f: %d of %d loops parked (listed by their inbox) %.1fs after the start; one approval; %d of %d then ran to their last iteration (%.1fs after the approval); the ledger holds $%.4f spent, the runs recorded $%.4f\n",
		capUSD, s.parked, loops+tasks, s.parkedAfter.Seconds(), s.completed, loops+tasks, s.resumedIn.Seconds(), s.spent, s.recorded)
	if s.parked != loops+tasks || s.completed != loops+tasks {
		bad++
		fmt.Println("ANOMALY: not every loop parked, or not every one went on after the approval")
	}
	if bad > 0 {
		return fmt.Errorf("%d anomalies", bad)
	}
	return nil
}

// result is what one phase measured.
type result struct {
	spent, recorded float64
	iterations      int
	stopped         int // loops stopped by the hard cap
	parked          int // loops the inbox listed as parked by the soft limit
	completed       int // loops that ran all their iterations
	parkedAfter     time.Duration
	resumedIn       time.Duration
}

// phase runs every loop under the cap in a fresh home and ledger.
func phase(b *harness.Bin, name string, loops, tasks, iters int, first float64, capYAML string) (result, error) {
	var r result
	root := filepath.Join(b.Root, name)
	home := filepath.Join(root, "home")
	conf := filepath.Join(home, ".config", "agentloop", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(conf), 0o700); err != nil {
		return r, err
	}
	budgets := "budgets:\n  caps:\n    - " + capYAML + "\n"
	if first > 0 {
		budgets += fmt.Sprintf("  first_iteration_usd: %g\n", first)
	}
	if err := os.WriteFile(conf, []byte(budgets), 0o600); err != nil {
		return r, err
	}
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, ".state"),
		"AGENTLOOP_BUDGET_POLL=200ms", "NO_COLOR=1", "CI=", "IS_SANDBOX=1"}
	fixture := filepath.Join(harness.ModuleRoot(), "cmd", "agentloop", "testdata", "fake", "claude-ok.jsonl")
	plan := "sleep 200ms\nprintfile " + fixture + "\n"
	proc := fmt.Sprintf("default: build\nprocedures:\n  build:\n    agent: {preset: claude, cmd: [%q], env: {FAKEAGENT_PLAN: %q, FAKEAGENT_DIR: .fa}}\n    limits: {max_iterations: %d, failure_threshold: 5}\n",
		b.Fakeagent, filepath.Join(root, "plan.txt"), iters)
	if err := os.WriteFile(filepath.Join(root, "plan.txt"), []byte(plan), 0o644); err != nil {
		return r, err
	}
	var dirs []string
	for i := range loops {
		dir := filepath.Join(root, fmt.Sprintf("run%02d", i))
		if err := harness.WriteRepo(dir, map[string]string{"agentloop.yaml": proc, ".gitignore": ".agentloop/\n.fa/\n"}); err != nil {
			return r, err
		}
		dirs = append(dirs, dir)
	}
	graph := filepath.Join(root, "graph")
	var tl strings.Builder
	tl.WriteString("tasks:\n")
	for i := range tasks {
		fmt.Fprintf(&tl, "  - {id: t%d, prompt: task %d}\n", i, i)
	}
	if err := harness.WriteRepo(graph, map[string]string{"agentloop.yaml": proc, "tasks.yaml": tl.String(), ".gitignore": ".agentloop/\n.fa/\n"}); err != nil {
		return r, err
	}

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	sessions := make([]harness.Session, loops+1)
	errs := make([]error, loops+1)
	for i, dir := range dirs {
		wg.Go(func() { sessions[i], errs[i] = b.Run(ctx, dir, 0, 0, env, "run", "build") })
	}
	wg.Go(func() {
		sessions[loops], errs[loops] = b.Run(ctx, graph, 0, 0, env, "run", "--tasks", "tasks.yaml", "--parallel", "4")
	})
	if name == "soft" {
		var err error
		r.parked, err = waitParked(ctx, b, append(dirs, graph), env, loops+tasks)
		r.parkedAfter = time.Since(start)
		if err != nil {
			return r, err
		}
		approved := time.Now()
		if _, err := output(b, root, env, "budget", "approve", "day"); err != nil {
			return r, err
		}
		wg.Wait()
		r.resumedIn = time.Since(approved)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return r, fmt.Errorf("session %d: %w", i, err)
		}
	}
	for i, s := range sessions {
		if s.Code != 0 && s.Code != 3 {
			fmt.Printf("%s: session %d exited %d: %s\n", name, i, s.Code, harness.LastLine(s.Stderr))
		}
	}
	var err error
	if r.spent, r.iterations, err = ledgerSpent(b, root, env); err != nil {
		return r, err
	}
	runs := map[string][]string{}
	for _, dir := range dirs {
		runs[dir] = []string{"build"}
	}
	for i := range tasks {
		runs[graph] = append(runs[graph], fmt.Sprintf("tasks-t%d", i))
	}
	for dir, names := range runs {
		for _, run := range names {
			rep, err := report(b, dir, env, run)
			if err != nil {
				return r, err
			}
			r.recorded += rep.Total.CostUSD
			if strings.Contains(rep.Reason, "budget") {
				r.stopped++
			}
			if rep.Status == "completed" && rep.Iterations == iters {
				r.completed++
			}
		}
	}
	return r, nil
}

var budgetKind = regexp.MustCompile(`"kind":\s*"budget"`)

// waitParked waits until the inbox of every repository lists its loops as
// parked by the budget, and says how many it listed.
func waitParked(ctx context.Context, b *harness.Bin, dirs []string, env []string, want int) (int, error) {
	deadline := time.Now().Add(5 * time.Minute)
	n := 0
	for time.Now().Before(deadline) && ctx.Err() == nil {
		n = 0
		for _, dir := range dirs {
			out, err := output(b, dir, env, "inbox", "--json")
			if err != nil {
				continue
			}
			n += len(budgetKind.FindAllString(out, -1))
		}
		if n >= want {
			return n, nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return n, nil
}

// ledgerSpent is today's spend in the ledger and its iterations (agentloop
// spend --format json).
func ledgerSpent(b *harness.Bin, root string, env []string) (float64, int, error) {
	out, err := output(b, root, env, "spend", "--format", "json")
	if err != nil {
		return 0, 0, fmt.Errorf("agentloop spend: %w", err)
	}
	var s struct {
		Periods []struct {
			Period string `json:"period"`
			Total  struct {
				USD        float64 `json:"usd"`
				Iterations int     `json:"iterations"`
			} `json:"total"`
		} `json:"periods"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		return 0, 0, fmt.Errorf("read agentloop spend: %w\n%s", err, out)
	}
	for _, p := range s.Periods {
		if p.Period == "day" {
			return p.Total.USD, p.Total.Iterations, nil
		}
	}
	return 0, 0, fmt.Errorf("agentloop spend gives no spend today:\n%s", out)
}

// output runs agentloop with args in dir and returns its standard output.
func output(b *harness.Bin, dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command(b.Agentloop, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("agentloop %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// summary is what a run's report says of it.
type summary struct {
	Status     string `json:"status"`
	Reason     string `json:"reason"`
	Iterations int    `json:"iterations"`
	Total      struct {
		CostUSD float64 `json:"cost_usd"`
	} `json:"total_usage"`
}

// report reads a run's report (agentloop report RUN --format json).
func report(b *harness.Bin, dir string, env []string, run string) (summary, error) {
	out, err := output(b, dir, env, "report", run, "--format", "json")
	if err != nil {
		return summary{}, fmt.Errorf("report %s in %s: %w", run, dir, err)
	}
	var rep struct {
		Summary summary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		return summary{}, fmt.Errorf("read the report of %s: %w", run, err)
	}
	return rep.Summary, nil
}
