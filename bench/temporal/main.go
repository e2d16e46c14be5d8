// Command temporal measures the Temporal engine at scale: N task loops of K
// iterations with a no-op agent, all started at once on a Temporal server and
// run by the workers polling its queue, then the same N loops on the local
// engine (one `agentloop run` each, as many at a time as there are workers), in
// the same run. It prints the total time, iterations per second, the time per
// iteration of each engine and their ratio, and the peak RSS of the processes
// named with -rss. bench/temporal.sh starts the server and the workers.
//
//	go run ./bench/temporal -address 127.0.0.1:7233 -dir WORK -agentloop BIN -n 1000
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/temporal"
)

func main() {
	var (
		address   = flag.String("address", "127.0.0.1:7233", "the Temporal server")
		queue     = flag.String("queue", "agentloop", "the workers' shared task queue")
		dir       = flag.String("dir", "", "the work tree the workers run the loops in")
		agentloop = flag.String("agentloop", "agentloop", "the agentloop binary, for the local engine's runs")
		n         = flag.Int("n", 1000, "task loops")
		k         = flag.Int("iterations", 3, "iterations per loop")
		parallel  = flag.Int("parallel", 2, "local runs at a time (as many as the workers)")
		localN    = flag.Int("local-n", 0, "loops on the local engine (default -n)")
		rss       = flag.String("rss", "", "processes whose peak RSS to report: label=pid,label=pid")
	)
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: temporal -dir WORK [-address A] [-n N] [-iterations K] [-agentloop BIN] [-rss label=pid,...]")
		os.Exit(2)
	}
	ctx := context.Background()
	tWall, failed, err := runTemporal(ctx, *address, *queue, *dir, *n, *k)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	peaks := peakRSS(*rss)
	if *localN <= 0 {
		*localN = *n
	}
	lWall, lFailed := runLocal(*agentloop, filepath.Join(*dir, "local"), *localN, *k, *parallel)

	iters, lIters := float64(*n**k), float64(*localN**k)
	fmt.Printf("loops:       %d x %d iterations, no-op agent\n", *n, *k)
	fmt.Printf("temporal:    %.1fs, %.1f iterations/s, %.2f ms/iteration, %d failed workflows\n", tWall.Seconds(), iters/tWall.Seconds(), ms(tWall)/iters, failed)
	fmt.Printf("local:       %d loops in %.1fs, %.1f iterations/s, %.2f ms/iteration, %d failed runs (%d at a time)\n", *localN, lWall.Seconds(), lIters/lWall.Seconds(), ms(lWall)/lIters, lFailed, *parallel)
	fmt.Printf("ratio:       %.2f (temporal / local per iteration; target <= 2)\n", (ms(tWall)/iters)/(ms(lWall)/lIters))
	for _, p := range peaks {
		fmt.Printf("peak RSS:    %s %s\n", p.label, p.rss)
	}
	if failed > 0 || lFailed > 0 {
		os.Exit(1)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// runTemporal starts the n loops at once and waits for every one to end.
func runTemporal(ctx context.Context, address, queue, dir string, n, k int) (time.Duration, int, error) {
	srv := temporal.Server{Address: address, Namespace: "default", TaskQueue: queue}
	c, err := temporal.Dial(ctx, srv, slog.New(slog.DiscardHandler))
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	args := []string{"--agent-cmd", "true", "--max-iterations", strconv.Itoa(k)}
	stamp := time.Now().Format("150405")
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("bench-%s-%04d", stamp, i+1)
	}
	start := time.Now()
	var failed atomic.Int32
	fail := func(name string, out loop.Outcome, err error) {
		failed.Add(1)
		fmt.Fprintf(os.Stderr, "%s: %s %s %v\n", name, out.Status, out.Reason, err)
	}
	// Every loop is started first, then waited for: all of them are on the
	// server at once.
	started := make([]bool, n)
	each(n, 4, func(i int) {
		p := &plan.Plan{Name: names[i], WorkDir: dir, Args: args, Proc: config.Procedure{
			Name: "build", Limits: config.Limits{Limits: budget.Limits{MaxIterations: k, FailureThreshold: 3}},
		}}
		in, err := temporal.NewInput(p, temporal.NewState(p, time.Now()), "")
		for try := 0; err == nil && try < 5; try++ {
			// A busy server may not answer in time: start again (the
			// workflow ID makes it once).
			if err = temporal.Start(ctx, c, srv, in, time.Now()); err == nil || errors.Is(err, temporal.ErrRunning) {
				err = nil
				break
			}
		}
		if err != nil {
			fail(names[i], loop.Outcome{}, err)
			return
		}
		started[i] = true
	})
	each(n, 64, func(i int) {
		if !started[i] {
			return
		}
		var out loop.Outcome
		err := c.GetWorkflow(ctx, temporal.WorkflowID(names[i]), "").Get(ctx, &out)
		if err != nil || out.Status != loop.StatusCompleted {
			fail(names[i], out, err)
		}
	})
	return time.Since(start), int(failed.Load()), nil
}

// each calls f(0) to f(n-1), at most at a time.
func each(n, at int, f func(i int)) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range at {
		wg.Go(func() {
			for i := range jobs {
				f(i)
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}

// runLocal runs the n loops on the local engine, parallel at a time, each in a
// folder of its own.
func runLocal(bin, dir string, n, k, parallel int) (time.Duration, int) {
	start := time.Now()
	var failed atomic.Int32
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range parallel {
		wg.Go(func() {
			for i := range jobs {
				d := filepath.Join(dir, strconv.Itoa(i))
				if err := os.MkdirAll(d, 0o755); err != nil {
					failed.Add(1)
					continue
				}
				cmd := exec.Command(bin, "run", "--agent-cmd", "true", "--max-iterations", strconv.Itoa(k), "-q")
				cmd.Dir = d
				if out, err := cmd.CombinedOutput(); err != nil {
					failed.Add(1)
					fmt.Fprintf(os.Stderr, "local run %d: %v\n%s", i, err, out)
				}
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return time.Since(start), int(failed.Load())
}

type peak struct{ label, rss string }

// peakRSS reads the peak RSS (VmHWM) of each label=pid.
func peakRSS(spec string) []peak {
	var out []peak
	for _, kv := range strings.Split(spec, ",") {
		label, pid, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		b, err := os.ReadFile("/proc/" + pid + "/status")
		rss := "unknown"
		if err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
					rss = strings.TrimSpace(v)
				}
			}
		}
		out = append(out, peak{label, rss})
	}
	return out
}
