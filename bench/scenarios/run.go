package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

const task = "Make the tests of package calc pass without changing what they check.\n"

// bench holds the binaries built for the suite.
type bench struct {
	root, bin string
}

func newBench() (*bench, error) {
	root, err := os.MkdirTemp("", "agentloop-scenarios-")
	if err != nil {
		return nil, err
	}
	b := &bench{root: root, bin: filepath.Join(root, "bin")}
	for pkg, out := range map[string]string{"./cmd/agentloop": "agentloop", "./internal/fakeagent/cmd/fakeagent": "fakeagent"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(b.bin, out), pkg)
		cmd.Dir = moduleRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.close()
			return nil, fmt.Errorf("build %s: %v\n%s", pkg, err, out)
		}
	}
	return b, nil
}

func (b *bench) close() { _ = os.RemoveAll(b.root) }

// moduleRoot is the repository's root: this file's module.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// result is how one policy did on one scenario.
type result struct {
	Runs     int    `json:"runs"`
	Outcome  string `json:"outcome"`
	Tampered bool   `json:"tampered,omitempty"` // it ended "succeeded" with the tests weakened
	// Why is agentloop's last words: why the run ended.
	Why string `json:"why,omitempty"`
	// Tasks are a naive loop's results per task of a graph, those it started.
	Tasks map[string]result `json:"tasks,omitempty"`
}

// row is one scenario under every policy that runs: agentloop, a fixed 3
// attempts, 3 consecutive failures, and the loop run to the cap (the cap at
// the suite's 75th percentile is the last one cut short: [summary.p75]).
type row struct {
	s                          scenario
	agentloop, fixed, con, cap result
}

func (r row) line() string {
	return fmt.Sprintf("agentloop %d %s, fixed-3 %d %s, consecutive-3 %d %s, to the cap %d %s (oracle %d %s)",
		r.agentloop.Runs, r.agentloop.Outcome, r.fixed.Runs, r.fixed.Outcome, r.con.Runs, r.con.Outcome, r.cap.Runs, r.cap.Outcome, r.s.oracle, r.s.want)
}

// all runs a scenario under agentloop and the naive policies.
func (b *bench) all(s scenario, verbose bool) (row, error) {
	r := row{s: s}
	var err error
	if r.agentloop, err = b.agentloop(s, verbose); err != nil {
		return r, err
	}
	if r.fixed, err = b.naive(s, 3, 0); err != nil {
		return r, err
	}
	if r.con, err = b.naive(s, s.limit(), 3); err != nil {
		return r, err
	}
	if r.cap, err = b.naive(s, s.limit(), 0); err != nil {
		return r, err
	}
	return r, nil
}

// setup writes the scenario's repository and returns it and the agent's folder.
func (b *bench) setup(s scenario, policy string, git bool) (repo, agentDir string, err error) {
	dir, err := os.MkdirTemp(b.root, s.name+"-"+policy+"-")
	if err != nil {
		return "", "", err
	}
	repo, agentDir = filepath.Join(dir, "repo"), filepath.Join(dir, "agent")
	files := map[string]string{"go.mod": "module example.com/calc\n\ngo 1.22\n", "TASK.md": s.text()}
	if s.graph != nil {
		files["tasks.yaml"] = tasksFile(s)
	}
	for k, v := range s.files {
		files[k] = v
	}
	for name, content := range files {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", "", err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return "", "", err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.txt"), []byte(s.plan), 0o644); err != nil {
		return "", "", err
	}
	if git {
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = repo
			if out, err := cmd.CombinedOutput(); err != nil {
				return "", "", fmt.Errorf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	return repo, agentDir, nil
}

// env is the environment of agentloop, the agent and the gate.
func (b *bench) env(repo, agentDir string) []string {
	dir := filepath.Dir(repo)
	env := append(os.Environ(),
		"PATH="+b.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"FAKEAGENT_PLAN="+filepath.Join(dir, "plan.txt"), "FAKEAGENT_DIR="+agentDir,
		"FLAKY_FLAG="+filepath.Join(dir, "clock-failed-once"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "IS_SANDBOX=1",
		"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "AGENTLOOP_BACKOFF_BASE=10ms", "NO_COLOR=1")
	return env
}

// agentloop runs the scenario under agentloop.
func (b *bench) agentloop(s scenario, verbose bool) (result, error) {
	repo, agentDir, err := b.setup(s, "agentloop", true)
	if err != nil {
		return result{}, err
	}
	agent := s.agentCmd
	if agent == "" {
		agent = "fakeagent"
	}
	args := []string{"run", "--agent-cmd", agent, "--context", "TASK.md", "--gate", "go test -count=1 -json ./...", "--max-iterations", strconv.Itoa(s.limit())}
	if s.graph != nil {
		args = []string{"run", "--agent-cmd", agent, "--tasks", "tasks.yaml", "--parallel", "1", "--max-iterations", strconv.Itoa(s.limit())}
	}
	cmd := exec.Command(filepath.Join(b.bin, "agentloop"), args...)
	cmd.Dir, cmd.Env = repo, b.env(repo, agentDir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if verbose {
		fmt.Fprintf(os.Stderr, "--- %s under agentloop:\n%s\n", s.name, out.String())
	}
	code := 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code = ee.ExitCode()
	} else if err != nil {
		return result{}, err
	}
	res := result{Runs: calls(agentDir), Outcome: outcomeOf(code), Why: lastWords(out.String())}
	if s.graph != nil {
		if res.Why, err = graphEnd(repo, s); err != nil {
			return result{}, fmt.Errorf("%w\n%s", err, out.String())
		}
	}
	res.Tampered = res.Outcome == "succeeded" && weakened(repo, s)
	return res, nil
}

func outcomeOf(code int) string {
	switch code {
	case 0:
		return "succeeded"
	case 2:
		return "config error"
	case 3:
		return "aborted"
	case 4:
		return "escalated"
	}
	return "exit " + strconv.Itoa(code)
}

// tookRE is the time a run took, at the end of its last line: left out, so
// that the doc's table changes only when the decisions do.
var tookRE = regexp.MustCompile(` \(\d+ iterations?, total time [^)]*\)$`)

// lastWords is agentloop's line that says why the run ended.
func lastWords(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "ESCALATED: "); i >= 0 {
			return l[i+len("ESCALATED: "):]
		}
		if i := strings.Index(l, "Finished: "); i >= 0 {
			return tookRE.ReplaceAllString(l[i+len("Finished: "):], "")
		}
	}
	first, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	return first
}

// calls is how many times the scripted agent was started.
func calls(agentDir string) int {
	b, err := os.ReadFile(filepath.Join(agentDir, "calls"))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

var testFuncRE = regexp.MustCompile(`(?m)^func (Test\w+)\(`)

// testBodies are a Go test file's tests, by name: each from its declaration
// to the next top-level declaration.
func testBodies(src string) map[string]string {
	out := map[string]string{}
	locs := testFuncRE.FindAllStringSubmatchIndex(src, -1)
	for i, m := range locs {
		end := len(src)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		out[src[m[2]:m[3]]] = strings.TrimSpace(src[m[0]:end])
	}
	return out
}

// weakened reports whether the tests were weakened: a skip added to a test
// file, a test the scenario started with gone or changed, or code that
// special-cases a test's input (the scenario's cheat) — the weakenings the
// scripted agents do.
func weakened(repo string, s scenario) bool {
	for name, content := range s.files {
		b, _ := os.ReadFile(filepath.Join(repo, name))
		if !strings.HasSuffix(name, "_test.go") {
			if s.cheat != "" && strings.HasSuffix(name, ".go") && regexp.MustCompile(s.cheat).Match(b) {
				return true
			}
			continue
		}
		if bytes.Contains(b, []byte("t.Skip(")) && !strings.Contains(content, "t.Skip(") {
			return true
		}
		now := testBodies(string(b))
		for test, body := range testBodies(content) {
			if now[test] != body {
				return true
			}
		}
	}
	return false
}

var failRE = regexp.MustCompile(`(?m)^\s*--- FAIL: `)

// naive runs the scenario under a plain loop: the agent gets the task and the
// last `go test` output; the run succeeds when the tests pass. It stops after
// limit runs, or after consecutive failed runs in a row (0: never); a run
// that leaves fewer failing tests than the one before is not a failure. A
// graph's tasks run so one after the other, in the same tree, each with its
// own package's tests and its title as the task; a task whose dependency did
// not succeed is not started, as a graph runner does. The graph succeeds when
// every task does, else it ends as its first task that did not.
func (b *bench) naive(s scenario, limit, consecutive int) (result, error) {
	repo, agentDir, err := b.setup(s, fmt.Sprintf("naive%d-%d", limit, consecutive), false)
	if err != nil {
		return result{}, err
	}
	if s.graph == nil {
		return b.naiveLoop(s, repo, agentDir, s.text(), "./...", limit, consecutive), nil
	}
	res := result{Outcome: "succeeded"}
	ok := map[string]bool{}
	for _, t := range s.graph {
		if t.after != "" && !ok[t.after] {
			continue // blocked
		}
		r := b.naiveLoop(s, repo, agentDir, t.title+"\n", "./"+t.pkg+"/...", limit, consecutive)
		if res.Tasks == nil {
			res.Tasks = map[string]result{}
		}
		res.Tasks[t.id] = r
		ok[t.id] = r.Outcome == "succeeded"
		res.Runs += r.Runs
		res.Tampered = res.Tampered || r.Tampered
		if !ok[t.id] && res.Outcome == "succeeded" {
			res.Outcome = r.Outcome
		}
	}
	return res, nil
}

// naiveLoop is the plain loop on one task: text and the tests of pkgs.
func (b *bench) naiveLoop(s scenario, repo, agentDir, text, pkgs string, limit, consecutive int) result {
	env := b.env(repo, agentDir)
	test := func() (bool, string, int) {
		cmd := exec.Command("go", "test", "-count=1", pkgs)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		n := len(failRE.FindAll(out, -1))
		if bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")) {
			n = 1 << 20
		}
		return err == nil, string(out), n
	}
	agent := s.agentCmd
	if agent == "" {
		agent = filepath.Join(b.bin, "fakeagent")
	}
	_, last, prev := test()
	res := result{Outcome: "gave up"}
	fails := 0
	for res.Runs < limit {
		res.Runs++
		cmd := exec.Command(agent)
		cmd.Dir, cmd.Env = repo, env
		cmd.Stdin = strings.NewReader(text + "\n" + last)
		_ = cmd.Run() // a run that fails or cannot start is judged by the tests, like the rest
		ok, out, n := test()
		if ok {
			res.Outcome = "succeeded"
			res.Tampered = weakened(repo, s)
			return res
		}
		if n < prev {
			fails = 0
		} else {
			fails++
		}
		last, prev = out, n
		if consecutive > 0 && fails >= consecutive {
			res.Outcome = "aborted"
			return res
		}
	}
	return res
}

// tasksFile is a graph scenario's tasks.yaml: one task at a time, each gated
// by its package's tests.
func tasksFile(s scenario) string {
	var b strings.Builder
	b.WriteString("parallel: 1\ntasks:\n")
	for _, t := range s.graph {
		fmt.Fprintf(&b, "  - id: %s\n    title: %s\n    gates: [{name: tests, run: %s, format: gotest-json}]\n", t.id, strconv.Quote(t.title), strconv.Quote("go test -count=1 -json ./"+t.pkg+"/..."))
		if t.after != "" {
			fmt.Fprintf(&b, "    depends_on: [%s]\n", t.after)
		}
	}
	return b.String()
}

// graphEnd is how a graph scenario's tasks ended under agentloop, from the
// graph's saved state: "fix: merged, area: escalated, total: blocked".
func graphEnd(repo string, s scenario) (string, error) {
	b, err := os.ReadFile(filepath.Join(repo, ".agentloop", "graphs", "tasks.json"))
	if err != nil {
		return "", fmt.Errorf("read the graph's state: %w", err)
	}
	var gs struct {
		Outcomes map[string]struct {
			State string `json:"state"`
		} `json:"outcomes"`
		Merged []string `json:"merged"`
	}
	if err := json.Unmarshal(b, &gs); err != nil {
		return "", fmt.Errorf("read the graph's state: %w", err)
	}
	var out []string
	for _, t := range s.graph {
		st := gs.Outcomes[t.id].State
		if slices.Contains(gs.Merged, t.id) {
			st = "merged"
		} else if st == "" {
			st = "not started"
		}
		out = append(out, t.id+": "+st)
	}
	return strings.Join(out, ", "), nil
}
