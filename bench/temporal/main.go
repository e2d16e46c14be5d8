// Command temporal measures the Temporal engine at scale: N task loops of K
// iterations in a git repository, with an agent that changes a file each
// iteration, all started at once on a Temporal server and run by the workers
// polling its queue (each in its own clone of the repository, pushing every
// checkpoint to the bare remote the clones share), then the same N loops on
// the local engine (one `agentloop run` each, as many at a time as there are
// workers, each in a clone of its own; with -agentloop-release, again by
// agentloop built as released, without the temporal tag), then git's floor: the same agent,
// commits and pushes done by a shell loop (gitfloor.sh), with and without the
// push. All in the same run. It prints the total time, iterations per second,
// the time per iteration of each and their ratios, checks that every run's
// last checkpoint is on the shared remote, and prints the peak RSS of the
// processes named with -rss. bench/temporal.sh makes the repository and its
// clones and starts the server and the workers.
//
//	go run ./bench/temporal -address 127.0.0.1:7233 -dir CLONE -remote BARE -agent CMD \
//	    -local CLONE,CLONE -floor gitfloor.sh -floor-dirs CLONE,CLONE -agentloop BIN -n 1000
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/temporal"
)

func main() {
	var (
		address   = flag.String("address", "127.0.0.1:7233", "the Temporal server")
		queue     = flag.String("queue", "agentloop", "the workers' shared task queue")
		dir       = flag.String("dir", "", "the clone the loops are started in (the workers map it onto their own clones)")
		remote    = flag.String("remote", "", "the bare repository the workers push their checkpoints to, checked after the run")
		agent     = flag.String("agent", "true", "the agent's command line (the workers must allow it)")
		agentloop = flag.String("agentloop", "agentloop", "the agentloop binary, for the local engine's runs")
		release   = flag.String("agentloop-release", "", "agentloop built as released (without the temporal tag), for the local loops run again: the local engine against git's floor as its users run it")
		n         = flag.Int("n", 1000, "task loops")
		k         = flag.Int("iterations", 3, "iterations per loop")
		local     = flag.String("local", "", "clones for the local engine's runs, one for each run at a time: dir,dir")
		localN    = flag.Int("local-n", 0, "loops on the local engine (default -n)")
		floor     = flag.String("floor", "", "git's floor script (gitfloor.sh); none: no floor")
		floorDirs = flag.String("floor-dirs", "", "clones for the floor's shell loops, one for each loop at a time: dir,dir")
		rss       = flag.String("rss", "", "processes whose peak RSS to report: label=pid,label=pid")
	)
	flag.Parse()
	if *dir == "" || *local == "" {
		fmt.Fprintln(os.Stderr, "usage: temporal -dir CLONE -local CLONE,CLONE [-remote BARE] [-agent CMD] [-floor SCRIPT -floor-dirs CLONE,CLONE] [-address A] [-n N] [-iterations K] [-agentloop BIN] [-rss label=pid,...]")
		os.Exit(2)
	}
	ctx := context.Background()
	procs := pids(*rss)
	tCPU, parts0, self0 := cpuOf(procs)+selfCPU(), cpuParts(*rss), selfCPU()
	tWall, failed, err := runTemporal(ctx, *address, *queue, *dir, *agent, *n, *k)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tCPU = cpuOf(procs) + selfCPU() - tCPU
	parts1, self1 := cpuParts(*rss), selfCPU()
	peaks := peakRSS(*rss)
	if *remote != "" {
		if missing := lastCheckpoints(*remote, *n, *k); missing != 0 {
			fmt.Fprintf(os.Stderr, "%d runs' last checkpoint (iter-%d) is not on the shared remote %s\n", missing, *k, *remote)
			failed += missing
		}
	}
	if *localN <= 0 {
		*localN = *n
	}
	localDirs := strings.Split(*local, ",")
	lCPU := childCPU()
	lWall, lFailed := runLocal(*agentloop, *agent, localDirs, *localN, *k)
	lCPU = childCPU() - lCPU

	var rWall, rCPU time.Duration
	if *release != "" {
		rCPU = childCPU()
		var rFailed int
		rWall, rFailed = runLocal(*release, *agent, localDirs, *localN, *k)
		rCPU = childCPU() - rCPU
		lFailed += rFailed
	}

	iters, lIters := float64(*n**k), float64(*localN**k)
	perT, perL := ms(tWall)/iters, ms(lWall)/lIters
	fmt.Printf("loops:       %d x %d iterations in a git repository, agent %q, each checkpoint pushed to a shared bare remote\n", *n, *k, *agent)
	fmt.Printf("temporal:    %.1fs, %.1f iterations/s, %.2f ms/iteration, %d failed workflows (or last checkpoints missing on the remote)\n", tWall.Seconds(), iters/tWall.Seconds(), perT, failed)
	fmt.Printf("local:       %d loops in %.1fs, %.1f iterations/s, %.2f ms/iteration, %d failed runs (%d at a time, a clone each, no push)\n", *localN, lWall.Seconds(), lIters/lWall.Seconds(), perL, lFailed, len(localDirs))
	perR := ms(rWall) / lIters
	if *release != "" {
		fmt.Printf("local:       the same loops by agentloop as released (no temporal tag): %.1fs, %.2f ms/iteration (CPU %.2f)\n", rWall.Seconds(), perR, ms(rCPU)/lIters)
	}
	fmt.Printf("ratio:       %.2f (temporal / local per iteration; target <= 1)\n", perT/perL)
	cpuT, cpuL := ms(tCPU)/iters, ms(lCPU)/lIters
	fmt.Printf("CPU:         temporal %.2f ms/iteration (server, workers and what they waited for, this client), local %.2f ms/iteration: ratio %.2f\n", cpuT, cpuL, cpuT/cpuL)
	split := fmt.Sprintf("client %.2f", ms(self1-self0)/iters)
	for _, label := range slices.Sorted(maps.Keys(parts1)) {
		a, b := parts0[label], parts1[label]
		split += fmt.Sprintf(", %s %.2f + its processes %.2f", label, ms(b[0]-a[0])/iters, ms(b[1]-a[1])/iters)
	}
	fmt.Printf("CPU split:   ms/iteration: %s\n", split)
	if *floor != "" {
		fd := strings.Split(*floorDirs, ",")
		pCPU := childCPU()
		pushed, fFailed := runFloor(*floor, fd, *agent, *localN, *k, true)
		cCPU := childCPU()
		committed, cFailed := runFloor(*floor, fd, *agent, *localN, *k, false)
		cCPU, pCPU = childCPU()-cCPU, cCPU-pCPU
		perP, perC := ms(pushed)/lIters, ms(committed)/lIters
		fmt.Printf("git floor:   %d loops, %d at a time: commit+push %.2f ms/iteration (CPU %.2f), commit %.2f ms/iteration (CPU %.2f), %d failed\n",
			*localN, len(fd), perP, ms(pCPU)/lIters, perC, ms(cCPU)/lIters, fFailed+cFailed)
		fmt.Printf("vs floor:    temporal / commit+push %.2f (CPU %.2f), local / commit %.2f (CPU %.2f)\n",
			perT/perP, cpuT/(ms(pCPU)/lIters), perL/perC, cpuL/(ms(cCPU)/lIters))
		if *release != "" {
			fmt.Printf("vs floor:    local as released / commit %.2f (CPU %.2f; target <= 2)\n", perR/perC, ms(rCPU)/ms(cCPU))
		}
		lFailed += fFailed + cFailed
	}
	for _, p := range peaks {
		fmt.Printf("peak RSS:    %s %s\n", p.label, p.rss)
	}
	if failed > 0 || lFailed > 0 {
		os.Exit(1)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// runTemporal starts the n loops at once and waits for every one to end.
func runTemporal(ctx context.Context, address, queue, dir, agent string, n, k int) (time.Duration, int, error) {
	srv := temporal.Server{Address: address, Namespace: "default", TaskQueue: queue}
	c, err := temporal.Dial(ctx, srv, slog.New(slog.DiscardHandler))
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	args := []string{"--agent-cmd=" + agent, "--max-iterations=" + strconv.Itoa(k)}
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
		p := &plan.Plan{Name: names[i], WorkDir: dir, StateDir: filepath.Join(dir, ".agentloop"), Args: args, Proc: config.Procedure{
			Name: "build", Limits: config.Limits{Limits: budget.Limits{MaxIterations: k, FailureThreshold: 3}},
		}}
		in, err := temporal.NewInput(p, temporal.NewState(p, time.Now()), "")
		if err == nil {
			// A busy server may not answer in time: start again (the
			// workflow ID makes it once).
			err = again(func() error {
				if err := temporal.Start(ctx, c, srv, in, time.Now()); !errors.Is(err, temporal.ErrRunning) {
					return err
				}
				return nil
			})
		}
		if err != nil {
			fail(names[i], loop.Outcome{}, err)
			return
		}
		started[i] = true
	})
	fmt.Fprintf(os.Stderr, "temporal: %d loops started in %.1fs\n", n, time.Since(start).Seconds())
	var ended atomic.Int32
	each(n, 64, func(i int) {
		if !started[i] {
			return
		}
		var out loop.Outcome
		err := again(func() error {
			err := c.GetWorkflow(ctx, temporal.WorkflowID(names[i]), "").Get(ctx, &out)
			if _, ended := errors.AsType[*sdktemporal.WorkflowExecutionError](err); ended {
				return permanent{err} // the workflow failed: no more tries
			}
			return err
		})
		if p, ok := errors.AsType[permanent](err); ok {
			err = p.error
		}
		if err != nil || out.Status != state.StatusCompleted {
			fail(names[i], out, err)
		}
		if e := ended.Add(1); e%100 == 0 {
			fmt.Fprintf(os.Stderr, "temporal: %d loops ended after %.1fs\n", e, time.Since(start).Seconds())
		}
	})
	return time.Since(start), int(failed.Load()), nil
}

// again calls f until it returns nil or a [permanent] error, at most 30
// times, 2 s apart: a server loaded by the loops may answer a call late, or
// not know its namespace for a moment.
func again(f func() error) error {
	var err error
	for try := range 30 {
		if err = f(); err == nil {
			return nil
		} else if _, ok := errors.AsType[permanent](err); ok {
			return err
		}
		if try == 0 {
			fmt.Fprintf(os.Stderr, "again after: %v\n", err)
		}
		time.Sleep(2 * time.Second)
	}
	return err
}

// permanent is an error [again] does not try again after.
type permanent struct{ error }

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

// lastCheckpoints counts the runs of n whose last checkpoint (iter-k) is
// missing on the bare remote: a worker pushes each checkpoint there, as a
// ref of its own or named in the run's journal (gitx.ShareCheckpoints). It
// prints how many refs the remote holds.
func lastCheckpoints(remote string, n, k int) int {
	out, err := exec.Command("git", "--git-dir", remote, "for-each-ref", "--format=%(refname)%0a%(contents)", "refs/agentloop/").Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "list the refs of %s: %v\n", remote, err)
		return n
	}
	refs, _ := exec.Command("git", "--git-dir", remote, "for-each-ref", "refs/agentloop/").Output()
	fmt.Printf("remote:      %d refs under refs/agentloop/\n", strings.Count(string(refs), "\n"))
	found := map[string]bool{}
	for _, ref := range strings.Fields(string(out)) {
		if strings.HasPrefix(ref, "refs/agentloop/") && strings.HasSuffix(ref, "/iter-"+strconv.Itoa(k)) {
			found[ref] = true
		}
	}
	return n - len(found)
}

// runLocal runs the n loops on the local engine, one at a time in each of
// dirs (clones of the repository).
func runLocal(bin, agent string, dirs []string, n, k int) (time.Duration, int) {
	start := time.Now()
	var failed atomic.Int32
	jobs := make(chan int)
	var wg sync.WaitGroup
	for _, d := range dirs {
		wg.Go(func() {
			for i := range jobs {
				cmd := exec.Command(bin, "run", "--agent-cmd", agent, "--max-iterations", strconv.Itoa(k), "-q")
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

// runFloor runs git's floor: n loops of k iterations shared out over the
// clones in dirs, one shell loop in each at a time, pushing each checkpoint
// to the clones' remote when push is set.
func runFloor(script string, dirs []string, agent string, n, k int, push bool) (time.Duration, int) {
	start := time.Now()
	var failed atomic.Int32
	var wg sync.WaitGroup
	for j, d := range dirs {
		loops := n / len(dirs)
		if j < n%len(dirs) {
			loops++
		}
		wg.Go(func() {
			cmd := exec.Command(script, d, strconv.Itoa(loops), strconv.Itoa(k), agent, map[bool]string{true: "1", false: "0"}[push])
			if out, err := cmd.CombinedOutput(); err != nil {
				failed.Add(1)
				fmt.Fprintf(os.Stderr, "git floor in %s: %v\n%s", d, err, out)
			}
		})
	}
	wg.Wait()
	return time.Since(start), int(failed.Load())
}

// pids are the process IDs of a label=pid,label=pid list.
func pids(spec string) []string {
	var out []string
	for _, kv := range strings.Split(spec, ",") {
		if _, pid, ok := strings.Cut(kv, "="); ok {
			out = append(out, pid)
		}
	}
	return out
}

// cpuOf is the CPU time of the processes so far, with their children's that
// they waited for.
func cpuOf(pids []string) time.Duration {
	var d time.Duration
	for _, pid := range pids {
		own, children := cpuSplit(pid)
		d += own + children
	}
	return d
}

// cpuSplit is the CPU time of the process so far, its own and that of the
// children it waited for (/proc/PID/stat: utime + stime, cutime + cstime).
func cpuSplit(pid string) (own, children time.Duration) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, 0
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest) // from the state, field 3
	field := func(i int) time.Duration {
		if i >= len(f) {
			return 0
		}
		v, _ := strconv.ParseInt(f[i], 10, 64)
		return time.Duration(v) * (time.Second / 100) // USER_HZ
	}
	return field(11) + field(12), field(13) + field(14)
}

// cpuParts is the CPU time of each label=pid so far: its own, and its
// children's.
func cpuParts(spec string) map[string][2]time.Duration {
	out := map[string][2]time.Duration{}
	for _, kv := range strings.Split(spec, ",") {
		if label, pid, ok := strings.Cut(kv, "="); ok {
			own, children := cpuSplit(pid)
			out[label] = [2]time.Duration{own, children}
		}
	}
	return out
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
