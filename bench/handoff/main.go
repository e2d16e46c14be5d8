// Command handoff is agentloop's hand-off campaign: random sequences of what
// happens to a run between a person and the loop — run, Ctrl-C (SIGINT),
// SIGTERM, SIGKILL, `agentloop stop` from another terminal, an escalation,
// guidance (resume --guidance), accept, abort, resume, resume --undo-cut, the
// person's edits of tracked files and untracked files created between
// sessions — and, for task graphs, run --tasks and a task's
// resume with guidance (resume GRAPH-TASK --guidance). The sequences are drawn
// from a seed, printed first: -seed N, or $AGENTLOOP_CAMPAIGN_SEED (go test's
// short campaign uses 1 without it), draws them again. After every session it
// checks what a hand-off must never break:
//
//   - nothing under .agentloop/runs/ is rewritten: every file is hashed after
//     each session, and a file may only stay identical or grow by appending
//     (the .jsonl logs and an attempt's agent.log); nothing is removed (the
//     marker of the attempt in progress, inflight.json, is not history);
//
//   - every agent attempt is recorded once with its spend: the history's
//     records and cut attempts are the attempts 1..N of the state, each once;
//     the folders are iter-001..iter-N exactly; each attempt's tokens and cost
//     are what its agent.log tells, and the run's spend is their sum; each
//     recorded attempt's checkpoint refs exist, and its checkpoint holds the
//     work of exactly one attempt more than where it started;
//
//   - every file and edit of the person is in the work tree or in a backup or
//     cut ref that a session named on the terminal (its content is checked in
//     git); and a resume (or guidance) after any stop — SIGINT, SIGTERM, stop,
//     SIGKILL, an escalation — leaves every edit the tree held when it began
//     in the tree: only accept and resume --undo-cut move them to a backup;
//
//   - the work tree is the checkpoint the state records (its "tree"; the best
//     checkpoint after accept; as it was after abort or an error);
//
//   - exit codes match states (0 succeeded or completed, 3 aborted, 4
//     escalated, 130 interrupted), and each session a person started is in the
//     run's hand-offs, guidance with its text;
//
//   - for graphs: no task is merged whose gate fails on the merged result
//     (each merge commit is checked out and its task's gate run), a graph exits
//     0 only when every task is merged, and each task's run passes the checks
//     above.
//
//     go run ./bench/handoff [-runs 200] [-graphs 30] [-parallel 2] [-seed N] [-first I] [-keep DIR]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/agentloop/agentloop/bench/internal/harness"
)

func main() {
	runs := flag.Int("runs", 200, "runs to drive")
	graphs := flag.Int("graphs", 30, "task graphs to drive after the runs")
	parallel := flag.Int("parallel", 2, "runs (or graphs) at once")
	seed := flag.Uint64("seed", 0, "the random sequences' seed (the moments of signals still vary with the machine); 0: $"+harness.SeedEnv+", or else the clock's")
	window := flag.Duration("window", 0, "a session is signalled at a uniformly random moment in [0, window), a quarter longer for each session signalled before it in its run; 0: half again the time of a run to its first escalation, measured first")
	first := flag.Int("first", 0, "the index of the first run and graph (with -seed, replays a run's sequence of commands)")
	keep := flag.String("keep", "", "a folder to keep the repository of each run or graph with an anomaly in, with sessions.log (every session's command, exit and output)")
	flag.Parse()
	if *seed == 0 {
		s, err := harness.Seed(os.Getenv, uint64(time.Now().UnixNano()))
		if err != nil {
			fmt.Fprintln(os.Stderr, "handoff:", err)
			os.Exit(2)
		}
		*seed = s
	}
	c, err := newCampaign(*seed, *window)
	if err != nil {
		fmt.Fprintln(os.Stderr, "handoff:", err)
		os.Exit(1)
	}
	defer c.Close()
	c.progress, c.first, c.keep = os.Stderr, *first, *keep
	fmt.Printf("seed %d, first signal window %s\n", *seed, c.window.Round(time.Millisecond))
	rep := c.runs(context.Background(), *runs, *parallel)
	fmt.Print("runs: ", rep)
	bad := rep.Anomalies
	if *graphs > 0 {
		g := c.graphs(context.Background(), *graphs, *parallel)
		fmt.Print("graphs: ", g)
		bad += g.Anomalies
	}
	if bad > 0 {
		os.Exit(1)
	}
}
