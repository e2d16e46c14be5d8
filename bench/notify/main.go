// Command notify-bench measures what notifications cost a loop when their
// receivers fail: the same loop of the fake Claude agent, each iteration
// rate-limited once (so each sends a rate_limited notification in the middle
// of the iteration, and the loop waits a fixed backoff), run without
// notifications, with a webhook that answers 500, and with one that never
// answers, one after the other, ROUNDS times. It prints the median
// iteration time of each (from the iteration_finished events) and its ratio
// to the run without notifications, the whole command's wall time (which
// includes the bounded wait for the last notifications at its end), and
// counts the delivery events each run recorded: every failure must be one.
//
//	go run ./bench/notify [-iterations 20] [-rounds 3]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	iterations := flag.Int("iterations", 20, "iterations per run")
	rounds := flag.Int("rounds", 3, "runs of each kind")
	flag.Parse()
	if err := run(*iterations, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "notify-bench:", err)
		os.Exit(1)
	}
}

// receiver is a webhook on 127.0.0.1 that answers status, or never (0).
func receiver(status int) (string, *atomic.Int64, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, nil, err
	}
	var hits atomic.Int64
	stop := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if status == 0 {
			select {
			case <-stop:
			case <-r.Context().Done():
			}
			return
		}
		w.WriteHeader(status)
	})}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/hook", &hits, func() { close(stop); _ = srv.Close() }, nil
}

type result struct {
	iters          []float64 // ms
	wall           time.Duration
	sent, failed   int
	rateLimited    int // warnings that carried a rate-limit wait
	failureSamples []string
}

func run(iterations, rounds int) error {
	root, err := filepath.Abs(".")
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "notify-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bin")
	for pkg, name := range map[string]string{"./cmd/agentloop": "agentloop", "./internal/fakeagent/cmd/fakeagent": "fakeagent"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(bin, name), pkg)
		cmd.Dir, cmd.Stderr = root, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build %s: %w", pkg, err)
		}
	}
	fake := filepath.Join(root, "cmd", "agentloop", "testdata", "fake")
	var odd []string
	for i := 1; i <= 2*iterations; i += 2 {
		odd = append(odd, fmt.Sprint(i))
	}
	plan := fmt.Sprintf("[%s]\nprintfile %s/claude-ratelimit-now.jsonl\nexit 1\n[*]\nprintfile %s/claude-ok.jsonl\n",
		strings.Join(odd, ","), fake, fake)
	broken, brokenHits, stopBroken, err := receiver(http.StatusInternalServerError)
	if err != nil {
		return err
	}
	defer stopBroken()
	dead, deadHits, stopDead, err := receiver(0)
	if err != nil {
		return err
	}
	defer stopDead()
	kinds := []struct{ name, notify string }{{"none", ""}, {"500", broken}, {"silent", dead}}
	results := map[string][]result{}
	load := func() string {
		b, _ := os.ReadFile("/proc/loadavg")
		return strings.Join(strings.Fields(string(b))[:3], " ")
	}
	fmt.Printf("load before: %s\n", load())
	for r := 1; r <= rounds; r++ {
		for _, k := range kinds {
			res, err := once(bin, tmp, plan, iterations, k.notify)
			if err != nil {
				return fmt.Errorf("%s, round %d: %w", k.name, r, err)
			}
			results[k.name] = append(results[k.name], res)
			fmt.Printf("round %d %-6s median iteration %7.1f ms, wall %6.2f s, rate_limited warnings %d, notifications sent %d, failed %d\n",
				r, k.name, median(res.iters), res.wall.Seconds(), res.rateLimited, res.sent, res.failed)
		}
	}
	fmt.Printf("load after: %s\n", load())
	base := medianOf(results["none"])
	fmt.Printf("\n%-7s %18s %8s %12s %14s\n", "kind", "median iteration", "ratio", "wall median", "failures/sent")
	for _, k := range kinds {
		m := medianOf(results[k.name])
		var walls []float64
		failed, sent := 0, 0
		for _, res := range results[k.name] {
			walls = append(walls, res.wall.Seconds())
			failed += res.failed
			sent += res.sent
		}
		fmt.Printf("%-7s %15.1f ms %8.3f %10.2f s %8d/%d\n", k.name, m, m/base, median(walls), failed, sent)
	}
	fmt.Printf("\nrequests received: 500 receiver %d, silent receiver %d\n", brokenHits.Load(), deadHits.Load())
	for _, k := range kinds[1:] {
		for _, res := range results[k.name] {
			if res.failed == 0 || res.failed != res.rateLimited+1 {
				return fmt.Errorf("%s: %d failures recorded for %d notifications (%d rate-limit waits and the run's end): every failure must be an event",
					k.name, res.failed, res.rateLimited+1, res.rateLimited)
			}
		}
		fmt.Printf("%s failures, for example: %s\n", k.name, results[k.name][0].failureSamples[0])
	}
	return nil
}

// once runs one loop in a fresh folder and reads its events.
func once(bin, tmp, plan string, iterations int, notify string) (result, error) {
	dir, err := os.MkdirTemp(tmp, "run")
	if err != nil {
		return result{}, err
	}
	cfg := fmt.Sprintf("agents:\n  fakeclaude: {preset: claude, cmd: [%s/fakeagent]}\nprocedures:\n  build:\n    agent: fakeclaude\n    limits: {max_iterations: %d}\n", bin, iterations)
	if notify != "" {
		cfg += fmt.Sprintf("notify:\n  webhook: %s\n  rate_limit_after: 1ms\n  timeout: 2s\n  retries: 1\n", notify)
	}
	if err := os.WriteFile(filepath.Join(dir, "agentloop.yaml"), []byte(cfg), 0o644); err != nil {
		return result{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.txt"), []byte(plan), 0o644); err != nil {
		return result{}, err
	}
	cmd := exec.Command(filepath.Join(bin, "agentloop"), "run", "build", "-q", "--context", "do it")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FAKEAGENT_PLAN="+filepath.Join(dir, "plan.txt"), "FAKEAGENT_DIR="+filepath.Join(dir, ".fa"),
		"IS_SANDBOX=1", "AGENTLOOP_BACKOFF_BASE=100ms", "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"))
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return result{}, fmt.Errorf("agentloop run: %w\n%s", err, out)
	}
	res := result{wall: time.Since(start)}
	paths, _ := filepath.Glob(filepath.Join(dir, ".agentloop", "runs", "build", "*", "events.jsonl"))
	if len(paths) != 1 {
		return result{}, fmt.Errorf("%d event logs", len(paths))
	}
	f, err := os.Open(paths[0])
	if err != nil {
		return result{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Type string `json:"type"`
			Data struct {
				Duration      float64 `json:"duration_ms"`
				RateLimitWait float64 `json:"rate_limit_wait_ms"`
				Error         string  `json:"error"`
			} `json:"data"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		switch line.Type {
		case "iteration_finished":
			res.iters = append(res.iters, line.Data.Duration)
		case "warning":
			if line.Data.RateLimitWait > 0 {
				res.rateLimited++
			}
		case "notification_sent":
			res.sent++
		case "notification_failed":
			res.failed++
			res.failureSamples = append(res.failureSamples, line.Data.Error)
		}
	}
	if len(res.iters) != iterations {
		return result{}, fmt.Errorf("%d iterations recorded, want %d:\n%s", len(res.iters), iterations, out)
	}
	return res, sc.Err()
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// medianOf is the median iteration time over every run of a kind.
func medianOf(rs []result) float64 {
	var all []float64
	for _, r := range rs {
		all = append(all, r.iters...)
	}
	return median(all)
}
