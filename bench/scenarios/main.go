// Command scenarios runs agentloop end to end on scripted agents and compares
// the agent runs it spends, and how the runs end, with a perfect controller
// (the oracle) and two naive policies. Each scenario is a tiny Go repository,
// a scripted agent that acts only on what its prompt names
// (internal/fakeagent's solve), and the real `go test` as the gate:
//
//   - agentloop: `agentloop run --agent-cmd fakeagent --gate 'go test -count=1
//     -json ./...' --max-iterations 10 --context TASK.md` in a git repository;
//   - fixed-3: run the agent at most 3 times, with the task and the last
//     `go test` output as its prompt, and stop when the tests pass;
//   - consecutive-3: the same without the limit of 3, stopping after 3
//     consecutive failed runs (a run with fewer failing tests than the one
//     before is not a failure), at most 10 runs.
//
// An agent run is a start of the agent's process (retries included). The
// oracle is the fewest runs after which the evidence shows the right outcome.
//
//	go run ./bench/scenarios [-only NAME,NAME] [-v]
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
	flag.Parse()
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
