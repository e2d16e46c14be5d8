// Command scenarios is LoopBench (docs/loopbench.md): it runs agentloop end
// to end on scripted agents and compares the agent runs it spends, and how
// the runs end, with a perfect controller (the oracle) and four naive
// policies (the last two: run to the cap, and a cap at the suite's 75th
// percentile). Each scenario is a tiny Go repository,
// a scripted agent that acts only on what its prompt names
// (internal/fakeagent's solve), and the real `go test` as the gate:
//
//   - agentloop: `agentloop run --agent-cmd fakeagent --gate 'go test -count=1
//     -json ./...' --max-iterations 10 --context TASK.md` in a git repository
//     (the scenario's cap, 10 unless it says);
//   - fixed-3: run the agent at most 3 times, with the task and the last
//     `go test` output as its prompt, and stop when the tests pass;
//   - consecutive-3: the same without the limit of 3, stopping after 3
//     consecutive failed runs (a run with fewer failing tests than the one
//     before is not a failure), at most 10 runs (the scenario's cap);
//   - to-cap: the same until the tests pass or the cap;
//   - p75-cap: a cap at the 75th percentile of the runs to-cap needed to
//     succeed over the suite (the first runs of to-cap: it is deterministic).
//
// A graph scenario runs under agentloop with `run --tasks tasks.yaml
// --parallel 1`; a naive policy runs its tasks one after the other, each its
// own loop, starting a task only when the one it depends on succeeded.
//
// An agent run is a start of the agent's process (retries included). The
// oracle is the fewest runs after which the evidence shows the right outcome.
//
//	go run ./bench/scenarios [-only NAME,NAME] [-v] [-doc docs/loopbench.md]
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	only := flag.String("only", "", "comma-separated scenario names (default: all)")
	verbose := flag.Bool("v", false, "print agentloop's output of each run")
	doc := flag.String("doc", "", "write the table, its date and commit into this Markdown file (docs/loopbench.md) between its markers; needs the whole suite")
	flag.Parse()
	if *doc != "" && *only != "" {
		fmt.Fprintln(os.Stderr, "scenarios: -doc needs the whole suite: leave out -only")
		os.Exit(2)
	}
	b, err := newBench()
	if err != nil {
		fmt.Fprintln(os.Stderr, "scenarios:", err)
		os.Exit(1)
	}
	defer b.close()
	var picked []scenario
	for _, s := range scenarios() {
		if *only == "" || contains(strings.Split(*only, ","), s.name) {
			picked = append(picked, s)
		}
	}
	var rows []row
	for _, s := range picked {
		r, err := b.all(s, *verbose)
		if err != nil {
			fmt.Fprintf(os.Stderr, "scenarios: %s: %v\n", s.name, err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "%s: %s\n", s.name, r.line())
		rows = append(rows, r)
	}
	t := table(rows)
	fmt.Print(t.String())
	if *doc != "" {
		if err := writeDoc(*doc, rows); err != nil {
			fmt.Fprintln(os.Stderr, "scenarios:", err)
			os.Exit(1)
		}
	}
	if !t.met() {
		os.Exit(1)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if strings.TrimSpace(y) == x {
			return true
		}
	}
	return false
}
