//go:build linux

// Command flat measures whether agentloop's costs stay flat as a run grows,
// against a floor measured in the same run. It runs N iterations (default
// 10,000) of a no-op agent (`true`, outside git) and measures a window of
// iterations up to the 100th, the 1,000th and the N-th: agentloop's wall time,
// its own CPU time and the bytes it wrote (wchar: what it passed to write
// calls; write_bytes: what reached the disk; from /proc/PID/io) per iteration,
// and the size of the state file there.
//
// The floor is bench/loop.sh's shell loop, bench/shellloop.sh (a new
// iteration folder, the prompt written and fed to `true` on stdin, its output
// to a log, a state file written, fsynced and renamed). It runs in bursts between agentloop's
// windows, while agentloop is stopped (SIGSTOP): before and after each window,
// so that the machine's load weighs on both alike; a window's ratio is
// agentloop's milliseconds per iteration against the mean of the bursts beside
// it.
//
// Then the first and the last 1,000 iterations' time per iteration (from the
// history's start times, less the time agentloop was stopped), and `status`
// and `report NAME -o report.html` on the finished run, interleaved with
// `agentloop version` (the binary's own start, their floor), 5 rounds.
//
//	go run ./bench/flat [-n 10000] [-at 100,1000] [-window 90] [-floor 30] [-keep DIR]
//
// Targets: bytes and time per iteration the same at every window (within
// 10%); the first and the last 1,000 within 10% of each other; status
// < 100 ms; report < 2 s.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 10000, "iterations")
	at := flag.String("at", "100,1000", "iteration counts where a window ends, besides N (comma-separated)")
	window := flag.Int("window", 90, "iterations in each window")
	floor := flag.Int("floor", 30, "iterations of the shell loop in each floor burst")
	slow := flag.Int("slow", 1000, "iterations in the first and the last slice compared from the history's times")
	keep := flag.String("keep", "", "run in this directory and keep it (default: a temporary one, removed)")
	readersOnly := flag.Bool("readers", false, "only time status and report on the run already in -keep")
	flag.Parse()
	if err := measure(config{n: *n, window: *window, floor: *floor, slice: *slow, keep: *keep}, *at, *readersOnly); err != nil {
		fmt.Fprintln(os.Stderr, "flat:", err)
		os.Exit(1)
	}
}

func measure(c config, at string, readersOnly bool) error {
	if readersOnly && c.keep == "" {
		return errors.New("-readers needs -keep DIR, a folder where this benchmark ran")
	}
	ends, err := windowEnds(at, c.n, c.window)
	if err != nil {
		return err
	}
	if 2*c.slice > c.n {
		return fmt.Errorf("-slow %d: two slices must fit in -n %d", c.slice, c.n)
	}
	c.ends = ends
	tmp, err := os.MkdirTemp("", "flat-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "agentloop")
	build := exec.Command("go", "build", "-o", bin, "./cmd/agentloop")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build agentloop (run from the repository's top): %w", err)
	}
	if readersOnly {
		return readers(bin, c.keep)
	}
	return run(c, bin, tmp)
}

type config struct {
	n, window, floor, slice int
	ends                    []int
	keep                    string
}

// windowEnds parses -at and adds n: sorted, each window inside the run and
// after the one before.
func windowEnds(at string, n, window int) ([]int, error) {
	var ends []int
	for f := range strings.SplitSeq(at, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		c, err := strconv.Atoi(f)
		if err != nil || c <= 0 || c >= n {
			return nil, fmt.Errorf("-at %q: want iteration counts between 1 and -n %d", f, n)
		}
		ends = append(ends, c)
	}
	ends = append(ends, n)
	slices.Sort(ends)
	prev := 0
	for _, c := range ends {
		if c-window <= prev {
			return nil, fmt.Errorf("-window %d: the window ending at %d starts at or before %d", window, c, prev)
		}
		prev = c
	}
	return ends, nil
}

// point is agentloop's counters at a moment it was stopped (or had exited).
type point struct {
	at         time.Time
	iterations int
	io         ioCounters
	cpu        time.Duration
	stateSize  int64
}

// result is one window: agentloop's costs per iteration and the floor's.
type result struct {
	end         int
	iterations  int
	wall, cpu   time.Duration // per iteration
	wchar, disk int64         // per iteration
	stateSize   int64
	floor       time.Duration // the floor's wall time per iteration, beside the window
}

func run(c config, bin, tmp string) error {
	dir := c.keep
	if dir == "" {
		dir = filepath.Join(tmp, "work")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fl := &floorLoop{dir: filepath.Join(tmp, "floor"), n: c.floor}
	fmt.Printf("load before: %s\n", loadavg())
	if _, err := fl.burst(); err != nil { // warm: the first burst is not counted
		return err
	}
	a, err := startRun(bin, dir, c.n)
	if err != nil {
		return err
	}
	var results []result
	var total ioCounters // the whole run's, read as it ends
	var stops []pause    // when agentloop was stopped, to take out of the history's times
	for _, end := range c.ends {
		r := result{end: end}
		p, err := a.stopAt(end - c.window)
		if err != nil {
			return err
		}
		if r.floor, err = fl.burst(); err != nil {
			return err
		}
		from := a.resume(p, &stops)
		var to point
		var after time.Duration
		if end < c.n {
			p, err := a.stopAt(end)
			if err != nil {
				return err
			}
			if after, err = fl.burst(); err != nil {
				return err
			}
			to = p
			a.resume(p, &stops)
		} else {
			if to, err = a.finish(); err != nil {
				return err
			}
			total = to.io
			if after, err = fl.burst(); err != nil {
				return err
			}
		}
		k := to.iterations - from.iterations
		r.iterations = k
		r.wall = to.at.Sub(from.at) / time.Duration(k)
		r.cpu = (to.cpu - from.cpu) / time.Duration(k)
		r.wchar = (to.io.wchar - from.io.wchar) / int64(k)
		r.disk = (to.io.writeBytes - from.io.writeBytes) / int64(k)
		r.stateSize = from.stateSize // while the run goes on (the last state is a final one)
		r.floor = (r.floor + after) / 2
		results = append(results, r)
	}
	fmt.Printf("load after:  %s\n", loadavg())
	printWindows(c, results)
	fmt.Printf("the whole run of %d iterations wrote %s (wchar) and %s reached the disk (write_bytes)\n",
		c.n, kib(total.wchar), kib(total.writeBytes))
	if err := printSlices(a.hist, c, stops); err != nil {
		return err
	}
	return readers(bin, dir)
}

func printWindows(c config, results []result) {
	fmt.Printf("%d iterations of `agentloop run --agent-cmd true`; per iteration, in windows of %d iterations, against the shell loop's bursts of %d beside each (the state file's size as the window starts):\n", c.n, c.window, c.floor)
	fmt.Printf("%8s %10s %10s %8s %10s %10s %10s %12s\n", "up to", "wall ms", "floor ms", "ratio", "CPU ms", "wchar", "disk", "state file")
	for _, r := range results {
		fmt.Printf("%8d %10.2f %10.2f %8.3f %10.2f %10s %10s %12s\n", r.end, ms(r.wall), ms(r.floor),
			r.wall.Seconds()/r.floor.Seconds(), ms(r.cpu), kib(r.wchar), kib(r.disk), strconv.FormatInt(r.stateSize, 10)+" B")
	}
	first, last := results[0], results[len(results)-1]
	fmt.Printf("last window / first: wall %.3f, ratio to the floor %.3f, CPU %.3f, wchar %.3f, disk %.3f, state file %.3f (target within 10%%)\n",
		last.wall.Seconds()/first.wall.Seconds(),
		(last.wall.Seconds()/last.floor.Seconds())/(first.wall.Seconds()/first.floor.Seconds()),
		last.cpu.Seconds()/first.cpu.Seconds(), float64(last.wchar)/float64(first.wchar),
		float64(last.disk)/float64(first.disk), float64(last.stateSize)/float64(first.stateSize))
}

// printSlices compares the first and the last c.slice iterations' time per
// iteration, from the history's start times, less the pauses.
func printSlices(h *history, c config, stops []pause) error {
	starts, err := h.startTimes()
	if err != nil {
		return err
	}
	if len(starts) != c.n {
		return fmt.Errorf("the history records %d iterations, want %d", len(starts), c.n)
	}
	span := func(from, to time.Time) time.Duration {
		d := to.Sub(from)
		for _, p := range stops {
			if p.from.After(from) && p.to.Before(to) {
				d -= p.to.Sub(p.from)
			}
		}
		return d / time.Duration(c.slice)
	}
	first := span(starts[0], starts[c.slice])
	last := span(starts[c.n-1-c.slice], starts[c.n-1])
	fmt.Printf("ms per iteration from the history's start times (pauses taken out): first %d %.2f, last %d %.2f: last/first %.3f (target within 10%%)\n",
		c.slice, ms(first), c.slice, ms(last), last.Seconds()/first.Seconds())
	return nil
}

// readers times status and report on the finished run, interleaved with
// `agentloop version`, the binary's start.
func readers(bin, dir string) error {
	cmds := []struct {
		name   string
		args   []string
		target time.Duration
	}{
		{"version (floor)", []string{"version"}, 0},
		{"status", []string{"status"}, 100 * time.Millisecond},
		{"status build", []string{"status", "build"}, 100 * time.Millisecond},
		{"report build -o report.html", []string{"report", "build", "-o", "report.html"}, 2 * time.Second},
	}
	const rounds = 5
	times := make([][]time.Duration, len(cmds))
	cpus := make([][]time.Duration, len(cmds))
	for range rounds {
		for i, c := range cmds {
			t0 := time.Now()
			cmd := exec.Command(bin, c.args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("agentloop %s: %w\n%s", c.name, err, out)
			}
			times[i] = append(times[i], time.Since(t0))
			cpus[i] = append(cpus[i], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		}
	}
	fmt.Printf("on the finished run, %d rounds, interleaved (load %s): median wall (range), median CPU, ratio of the medians to version's\n", rounds, loadavg())
	for i, c := range cmds {
		slices.Sort(times[i])
		slices.Sort(cpus[i])
		target := ""
		if c.target > 0 {
			target = fmt.Sprintf("; target < %s", c.target)
		}
		fmt.Printf("  agentloop %-28s %7s (%s to %s), CPU %6s; wall %.2f×, CPU %.2f×%s\n", c.name,
			times[i][rounds/2].Round(time.Millisecond), times[i][0].Round(time.Millisecond), times[i][rounds-1].Round(time.Millisecond),
			cpus[i][rounds/2].Round(time.Millisecond), times[i][rounds/2].Seconds()/times[0][rounds/2].Seconds(),
			cpus[i][rounds/2].Seconds()/cpus[0][rounds/2].Seconds(), target)
	}
	if st, err := os.Stat(filepath.Join(dir, "report.html")); err == nil {
		fmt.Printf("report.html: %s\n", kib(st.Size()))
	}
	return nil
}

// floorLoop is bench/shellloop.sh, bench/loop.sh's floor, run in bursts of n
// iterations.
type floorLoop struct {
	dir  string
	n    int
	done int
}

// burst runs the next n iterations of the shell loop and returns its wall
// time per iteration.
func (f *floorLoop) burst() (time.Duration, error) {
	cmd := exec.Command("bash", "bench/shellloop.sh", f.dir, strconv.Itoa(f.done+1), strconv.Itoa(f.n))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("the shell loop: %w\n%s", err, out.Bytes())
	}
	f.done += f.n
	return time.Since(t0) / time.Duration(f.n), nil
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func kib(n int64) string { return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10)) }
