//go:build linux

// Command localfloor measures the local engine against git's commit floor,
// interleaved: in each round, N runs of `agentloop run --agent-cmd AGENT
// --max-iterations K -q` one at a time in a small git repository, by each
// agentloop binary given, and git's floor (bench/temporal/gitfloor.sh: the
// same agent, then `git add -A`, `write-tree`, `commit-tree` and
// `update-ref` an iteration) for N loops of K iterations, each in a clone of
// its own; the order turns round each round. It prints, for each, the wall
// and CPU time per iteration (medians of the rounds) and the ratio to the
// floor (the median of the rounds' ratios). The CPU is every descendant's,
// those left behind included (this process is their subreaper): the
// watchdog an agentloop run leaves behind counts.
//
//	go run ./bench/localfloor -agentloop BIN[,BIN] [-n 10] [-rounds 6] [-iterations 3]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	var (
		bins   = flag.String("agentloop", "", "agentloop binaries, comma-separated")
		n      = flag.Int("n", 10, "runs of each binary, and loops of the floor, a round")
		rounds = flag.Int("rounds", 6, "rounds")
		k      = flag.Int("iterations", 3, "iterations a run")
		agent  = flag.String("agent", `sh -c "date +%N >>work.txt"`, "the agent's command line")
		floor  = flag.String("floor", "bench/temporal/gitfloor.sh", "git's floor script")
	)
	flag.Parse()
	if *bins == "" {
		fmt.Fprintln(os.Stderr, "usage: localfloor -agentloop BIN[,BIN] [-n 10] [-rounds 6] [-iterations 3]")
		os.Exit(2)
	}
	const prSetChildSubreaper = 36 // <linux/prctl.h>
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		fail(fmt.Errorf("become a subreaper: %w", errno))
	}
	script, err := filepath.Abs(*floor)
	if err != nil {
		fail(err)
	}
	tmp, err := os.MkdirTemp("", "localfloor-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	env := append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@localhost", "GIT_COMMITTER_NAME=bench",
		"GIT_COMMITTER_EMAIL=bench@localhost", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0",
		"HOME="+filepath.Join(tmp, "home"), "XDG_CONFIG_HOME="+filepath.Join(tmp, "home", ".config"), "XDG_STATE_HOME=")
	names := append(strings.Split(*bins, ","), "floor")
	dirs := make([]string, len(names))
	for i := range names {
		dirs[i] = filepath.Join(tmp, "clone-"+strconv.Itoa(i))
		repo(tmp, dirs[i], env)
	}
	type took struct{ wall, cpu time.Duration }
	got := make([][]took, len(names))
	for r := range *rounds {
		order := make([]int, len(names))
		for i := range order {
			order[i] = i
		}
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			var cmds [][]string
			if names[i] == "floor" {
				cmds = [][]string{{script, dirs[i], strconv.Itoa(*n), strconv.Itoa(*k), *agent, "0"}}
			} else {
				for range *n {
					cmds = append(cmds, []string{names[i], "run", "--agent-cmd", *agent, "--max-iterations", strconv.Itoa(*k), "-q"})
				}
			}
			start, cpu := time.Now(), time.Duration(0)
			for _, c := range cmds {
				cpu += run(c, dirs[i], env)
			}
			got[i] = append(got[i], took{time.Since(start), cpu})
		}
	}
	iters := float64(*n * *k)
	per := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / iters }
	fl := len(names) - 1
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("%d rounds of %d runs of %d iterations each, agent %q, load %s\n", *rounds, *n, *k, *agent, strings.Join(strings.Fields(string(load))[:3], " "))
	for i, name := range names {
		var w, c, rw, rc []float64
		for r, t := range got[i] {
			w, c = append(w, per(t.wall)), append(c, per(t.cpu))
			rw, rc = append(rw, float64(t.wall)/float64(got[fl][r].wall)), append(rc, float64(t.cpu)/float64(got[fl][r].cpu))
		}
		fmt.Printf("%-40s %7.2f ms/iteration (CPU %6.2f)   / floor: %.2f (CPU %.2f)\n", name, median(w), median(c), median(rw), median(rc))
	}
}

// run runs argv in dir and waits for it and every process it left behind,
// and returns their CPU time.
func run(argv []string, dir string, env []string) time.Duration {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	var cpu time.Duration
	for {
		var ru syscall.Rusage
		var st syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &st, 0, &ru)
		if err != nil { // ECHILD: no one left
			return cpu
		}
		cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		if pid == cmd.Process.Pid && (!st.Exited() || st.ExitStatus() != 0) {
			fail(fmt.Errorf("%s in %s: %v", strings.Join(argv, " "), dir, st))
		}
	}
}

// repo makes a bare repository with one commit and its clone at dir.
func repo(tmp, dir string, env []string) {
	bare, seed := dir+".git", dir+"-seed"
	for _, c := range [][]string{{"init", "-q", "--bare", bare}, {"clone", "-q", bare, seed}} {
		git(tmp, env, c...)
	}
	for name, text := range map[string]string{"README.md": "a project\n", ".gitignore": ".agentloop/\n"} {
		if err := os.WriteFile(filepath.Join(seed, name), []byte(text), 0o644); err != nil {
			fail(err)
		}
	}
	git(seed, env, "add", "-A")
	git(seed, env, "commit", "-q", "-m", "start")
	git(seed, env, "push", "-q", "origin", "HEAD")
	git(tmp, env, "clone", "-q", bare, dir)
}

func git(dir string, env []string, args ...string) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		fail(fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out))
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "localfloor:", err)
	os.Exit(1)
}
