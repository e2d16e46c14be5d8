// Command start-bench measures how long agentloop takes to start: `agentloop
// version`, and `agentloop status` in an empty state folder and in one with a
// few runs, against the floor, a Go program that does nothing, built by the same
// toolchain. The commands run interleaved, one of each per round after a
// warm-up, so that a loaded machine slows them alike; it prints the median wall
// and CPU time of each, its ratio to the floor's, status against version, and
// the load. Then it runs `agentloop version` under GODEBUG=inittrace=1 and
// prints where package initialization went: the module's packages and the
// others, the largest first. The targets (issue 42): version ≤ 5 ms, status
// within 1.2× of version.
//
//	go run ./bench/start [-rounds 20] [-warmup 3] [-bin PATH] [-compare PATH]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/bench/internal/harness"
)

func main() {
	rounds := flag.Int("rounds", 20, "rounds: each command runs once a round, the median is reported")
	warmup := flag.Int("warmup", 3, "rounds run first and not counted")
	bin := flag.String("bin", "", "the agentloop binary to measure (default: built from ./cmd/agentloop)")
	compare := flag.String("compare", "", "another agentloop binary whose `version` runs in the same rounds (an earlier build, say)")
	flag.Parse()
	if err := run(*rounds, *warmup, *bin, *compare); err != nil {
		fmt.Fprintln(os.Stderr, "start-bench:", err)
		os.Exit(1)
	}
}

// command is one of the commands the rounds run.
type command struct {
	name string
	argv []string
	dir  string
	wall []time.Duration
	cpu  []time.Duration
}

func run(rounds, warmup int, bin, compare string) error {
	dir, err := os.MkdirTemp("", "start-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if bin == "" {
		b, err := harness.Build("start-bench-bin")
		if err != nil {
			return err
		}
		defer b.Close()
		bin = b.Agentloop
	}
	floor, err := buildFloor(dir)
	if err != nil {
		return err
	}
	empty := filepath.Join(dir, "empty")
	runs := filepath.Join(dir, "runs")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		return err
	}
	n, err := makeRuns(bin, runs)
	if err != nil {
		return err
	}

	cmds := []*command{
		{name: "floor (a Go program doing nothing)", argv: []string{floor}, dir: dir},
		{name: "agentloop version", argv: []string{bin, "version"}, dir: dir},
		{name: "agentloop status, empty state folder", argv: []string{bin, "status"}, dir: empty},
		{name: fmt.Sprintf("agentloop status, %d runs", n), argv: []string{bin, "status"}, dir: runs},
	}
	if compare != "" {
		cmds = append(cmds, &command{name: "compared: " + compare + " version", argv: []string{compare, "version"}, dir: dir})
	}
	fmt.Printf("load before: %s\n", loadavg())
	for r := 0; r < warmup+rounds; r++ {
		// Rotate the order each round, so that no command always follows another.
		for i := range cmds {
			c := cmds[(i+r)%len(cmds)]
			wall, cpu, err := timeOne(c)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			if r >= warmup {
				c.wall, c.cpu = append(c.wall, wall), append(c.cpu, cpu)
			}
		}
	}
	fmt.Printf("load after:  %s\n", loadavg())
	fmt.Printf("%d rounds after %d of warm-up, interleaved: median wall (10th–90th percentile), median CPU, ratio of the medians to the floor's\n", rounds, warmup)
	fl := median(cmds[0].wall)
	for _, c := range cmds {
		w := median(c.wall)
		fmt.Printf("  %-40s %7s (%s–%s)  CPU %7s  %5.2f× floor\n", c.name, ms(w), ms(pct(c.wall, 10)), ms(pct(c.wall, 90)), ms(median(c.cpu)), ratio(w, fl))
	}
	v := median(cmds[1].wall)
	fmt.Printf("status against version (target ≤ 1.20×): empty %.2f×, %d runs %.2f×; version beyond the floor: %s (target: version ≤ 5 ms)\n",
		ratio(median(cmds[2].wall), v), n, ratio(median(cmds[3].wall), v), ms(v-fl))
	return initTrace(bin, dir, rounds)
}

// timeOne runs c once and returns its wall time and CPU time (user and system).
func timeOne(c *command) (time.Duration, time.Duration, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir = c.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// buildFloor builds a Go program that does nothing with the toolchain that
// builds agentloop.
func buildFloor(dir string) (string, error) {
	src := filepath.Join(dir, "floor")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module floor\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "floor-bin")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the floor: %w\n%s", err, out)
	}
	return bin, nil
}

// makeRuns records a few runs of a no-op agent in dir's state folder (outside
// git, the user's state under dir) and returns how many.
func makeRuns(bin, dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	procs := []string{"build", "fix-tests", "build"}
	for _, p := range procs {
		cmd := exec.Command(bin, "run", p, "--agent-cmd", "true", "--max-iterations", "3")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_STATE_HOME="+filepath.Join(dir, "xdg-state"), "XDG_CONFIG_HOME="+filepath.Join(dir, "xdg-config"))
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("record a run of %s: %w: %s", p, err, bytes.TrimSpace(out))
		}
	}
	return len(procs), nil
}

var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, ([\d.]+) ms clock, (\d+) bytes, (\d+) allocs`)

// initTrace runs `agentloop version` rounds times under GODEBUG=inittrace=1 and
// prints the median of each package's initialization time, the module's
// packages and the others, and their sums.
func initTrace(bin, dir string, rounds int) error {
	clock := map[string][]float64{}
	bytesOf := map[string]int{}
	var totals []float64
	for range rounds {
		cmd := exec.Command(bin, "version")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("version under inittrace: %w", err)
		}
		total := 0.0
		for _, line := range strings.Split(stderr.String(), "\n") {
			m := initLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			c, _ := strconv.ParseFloat(m[2], 64)
			b, _ := strconv.Atoi(m[3])
			clock[m[1]] = append(clock[m[1]], c)
			bytesOf[m[1]] = b
			total += c
		}
		totals = append(totals, total)
	}
	type pkg struct {
		name  string
		ms    float64
		bytes int
	}
	var own, other []pkg
	var ownSum, otherSum float64
	for name, cs := range clock {
		p := pkg{name, medianF(cs), bytesOf[name]}
		if strings.HasPrefix(name, "github.com/agentloop/agentloop/") {
			own, ownSum = append(own, p), ownSum+p.ms
		} else {
			other, otherSum = append(other, p), otherSum+p.ms
		}
	}
	byTime := func(a, b pkg) int {
		if a.ms != b.ms {
			if a.ms > b.ms {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	}
	slices.SortFunc(own, byTime)
	slices.SortFunc(other, byTime)
	fmt.Printf("package initialization of agentloop version (GODEBUG=inittrace=1, %d runs): %.2f ms (the median of the runs' totals); the sum of each package's median: the module's %d packages %.3f ms, the other %d %.2f ms; the largest of each:\n",
		rounds, medianF(totals), len(own), ownSum, len(other), otherSum)
	for _, list := range [][]pkg{own, other} {
		for _, p := range list[:min(8, len(list))] {
			fmt.Printf("  %-55s %6.3f ms %9d bytes\n", p.name, p.ms, p.bytes)
		}
	}
	return nil
}

func median(ds []time.Duration) time.Duration { return pct(ds, 50) }

// pct is the p-th percentile of ds (nearest rank).
func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, len(s)*p/100)]
}

func medianF(fs []float64) float64 {
	s := slices.Clone(fs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}
