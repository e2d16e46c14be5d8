package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	agentcli "github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/double"
	"github.com/agentloop/agentloop/internal/testenv"
)

var (
	clisDir = os.Getenv("AGENTLOOP_E2E_CLIS")
	binary  string // the agentloop binary under test
)

// parallel is how many scenarios run at once unless -parallel says: they
// mostly wait (on the CLIs' start, their retries and backoffs, the iteration
// timeout), so more than the cores keeps the tier short.
const parallel = "4"

func TestMain(m *testing.M) {
	code := func() int {
		if clisDir == "" {
			testenv.SayTier("end-to-end (the real agent CLIs)", false, "AGENTLOOP_E2E_CLIS is not set: .ci/run installs the CLIs with npm and sets it")
			return m.Run()
		}
		flag.Parse()
		if testing.Short() {
			testenv.SayTier("end-to-end (the real agent CLIs)", false, "-short")
		} else {
			testenv.SayTier("end-to-end (the real agent CLIs)", true, "from "+clisDir)
		}
		given := false
		flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
		if !given {
			_ = flag.Set("test.parallel", parallel)
		}
		dir, err := os.MkdirTemp("", "agentloop-e2e-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		binary = filepath.Join(dir, "agentloop")
		out, err := exec.Command("go", "build", "-o", binary, "github.com/agentloop/agentloop/cmd/agentloop").CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "build agentloop: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// need skips a test when the CLIs are not installed, and fails it in CI, where
// .ci/run installs them.
func need(t *testing.T) {
	t.Helper()
	if clisDir == "" {
		if testenv.CI() {
			t.Fatal("AGENTLOOP_E2E_CLIS is not set: .ci/run installs the agent CLIs with npm and sets it to their prefix")
		}
		t.Skip("AGENTLOOP_E2E_CLIS is not set: the end-to-end tier needs the agent CLIs installed with npm (see .ci/run)")
	}
	if testing.Short() {
		t.Skip("the end-to-end tier runs real agent CLIs; not with -short")
	}
	testenv.NeedTool(t, "git")
	testenv.NeedTool(t, "go")
}

func binDir() string { return filepath.Join(clisDir, "node_modules", ".bin") }

// The scenarios the double plays. The edit turn fixes the repository's bug with
// the CLI's own shell tool; the gate then passes.
const (
	fixCmd       = `sed -i 's/return a - b/return a + b/' calc.go && echo fixed`
	editScenario = `
turns:
  - text: "The test expects a sum; I will fix Add."
    shell: "` + fixCmd + `"
    usage: {input: 1200, cached: 200, output: 40}
  - text: "Fixed calc.go: Add now adds."
    usage: {input: 1500, cached: 1000, output: 12}
final: "Done."
`
	rateLimitedOnceScenario = `
turns:
  - fault: {status: 429, retry_after: 1, count: 1}
    text: "The test expects a sum; I will fix Add."
    shell: "` + fixCmd + `"
    usage: {input: 1200, output: 40}
  - text: "Fixed calc.go."
    usage: {input: 1500, output: 12}
`
	rateLimitedScenario = `
fault: {status: 429, retry_after: 1}
turns: [{text: never served}]
`
	cutScenario = `
fault: {cut: true}
turns: [{text: "never whole"}]
`
	hangScenario = `
fault: {hang: true}
turns: [{text: "never ends"}]
`
	badKeyScenario = `
fault: {status: 401}
turns: [{text: never served}]
`
	approveScenario = `
turns:
  - text: '{"verdict": "approve", "score": 9, "confidence": 0.9, "summary": "Add now adds; the test passes.", "tags": [], "findings": []}'
    usage: {input: 900, output: 30}
`
)

// repo makes the small Go repository: Add subtracts, its test fails.
func repo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	files := map[string]string{
		"go.mod":       "module calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int { return a - b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
		".gitignore":   ".agentloop/\n",
		"TASK.md":      "Make the tests pass: Add must return the sum of its arguments.\n",
	}
	for name, content := range files {
		if err := writeFile(filepath.Join(dir, name), content); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=e2e", "-c", "user.email=e2e@example.com", "commit", "-qm", "calc"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// server is one model double for one agent of a test.
type server struct {
	*double.Server
	url string
}

func serve(t *testing.T, scenario string) server {
	t.Helper()
	sc, err := double.ParseScenario("scenario.yaml", []byte(scenario))
	if err != nil {
		t.Fatal(err)
	}
	s := double.New(sc, nil)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return server{s, hs.URL}
}

// agent is one configured agent of a test: a CLI pointed at a double.
type agent struct {
	cli    cli
	name   string // its name in agentloop.yaml
	srv    server
	env    map[string]string
	setup  func(env map[string]string) // changes the recipe's environment
	result string                      // the scenario name, for captured transcripts
}

func (a *agent) spec(t *testing.T, root string) map[string]any {
	t.Helper()
	home := filepath.Join(root, "home-"+a.name)
	env, err := a.cli.setup(home, a.srv.url)
	if err != nil {
		t.Fatal(err)
	}
	if a.setup != nil {
		a.setup(env)
	}
	a.env = env
	spec := map[string]any{"preset": a.cli.name, "env": env}
	if dir := os.Getenv("AGENTLOOP_E2E_CAPTURE"); dir != "" {
		p, err := agentcli.Lookup(a.cli.name)
		if err != nil {
			t.Fatal(err)
		}
		spec["cmd"] = []string{captureWrapper(t, root, filepath.Join(binDir(), a.cli.bin),
			filepath.Join(dir, a.cli.name+"-"+a.cli.version+"-"+a.result))}
		spec["args"] = p.Args
	}
	return spec
}

// captureWrapper is a script that runs the CLI and keeps its stdout, stderr
// and exit code under prefix.
func captureWrapper(t *testing.T, root, real, prefix string) string {
	t.Helper()
	path := filepath.Join(root, "capture-"+filepath.Base(prefix)+".sh")
	script := fmt.Sprintf(`#!/bin/sh
mkdir -p %[1]q
%[2]q "$@" >%[3]q.stdout.jsonl 2>%[3]q.stderr.txt
code=$?
echo "$code" >%[3]q.exit-code
cat %[3]q.stdout.jsonl
cat %[3]q.stderr.txt >&2
exit "$code"
`, filepath.Dir(prefix), real, prefix)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// loop is one `agentloop run` of a test.
type loop struct {
	dir      string
	main     *agent
	fallback []*agent
	reviewer *agent
	env      []string       // added to agentloop's environment
	limits   map[string]any // replace the procedure's limits of these names
	sandbox  map[string]any // the procedure's sandbox: section, when set
	prefix   []string       // runs agentloop under this command (see [asRoot])
}

func (l *loop) config(t *testing.T) {
	t.Helper()
	root := filepath.Dir(l.dir)
	agents := map[string]any{l.main.name: l.main.spec(t, root)}
	proc := map[string]any{
		"agent":  l.main.name,
		"prompt": map[string]any{"context": []string{"TASK.md"}},
		"gates": []any{map[string]any{"name": "tests", "run": "go test -json ./...", "format": "gotest-json",
			"timeout": "3m", "env": map[string]string{"GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"}}},
		"limits": map[string]any{"max_iterations": 2, "failure_threshold": 2, "iteration_timeout": "10m"},
	}
	maps.Copy(proc["limits"].(map[string]any), l.limits)
	if l.sandbox != nil {
		proc["sandbox"] = l.sandbox
	}
	var fb []string
	for _, a := range l.fallback {
		agents[a.name] = a.spec(t, root)
		fb = append(fb, a.name)
	}
	if fb != nil {
		proc["fallback"] = fb
	}
	if l.reviewer != nil {
		agents[l.reviewer.name] = l.reviewer.spec(t, root)
		proc["reviewer"] = map[string]any{"agent": l.reviewer.name}
	}
	b, err := yaml.Marshal(map[string]any{"agents": agents, "procedures": map[string]any{"build": proc}})
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(l.dir, "agentloop.yaml"), string(b)); err != nil {
		t.Fatal(err)
	}
}

// outcome is what a run left: its exit code, its output and its JSON report.
type outcome struct {
	code           int
	stdout, stderr string
	report         struct {
		Summary struct {
			Status     string   `json:"status"`
			Reason     string   `json:"reason"`
			Iterations int      `json:"iterations"`
			Tokens     *int64   `json:"tokens"`
			CostUSD    *float64 `json:"cost_usd"`
			Total      struct {
				CacheRead     int64   `json:"cache_read_tokens"`
				CostUSD       float64 `json:"cost_usd"`
				CostKnown     bool    `json:"cost_known"`
				CostEstimated bool    `json:"cost_estimated"`
			} `json:"total_usage"`
		} `json:"summary"`
	}
}

func (o outcome) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s\n--- stderr\n%s", o.code, o.stdout, o.stderr)
}

func (l *loop) command(ctx context.Context, args ...string) *exec.Cmd {
	argv := append(append(append([]string(nil), l.prefix...), binary), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// A test that runs out of time interrupts agentloop as Ctrl-C does, so it
	// ends its agents; SIGKILL only if it does not end.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	cmd.Dir = l.dir
	// The spend ledger every run keeps (and the usage limits it tells other
	// loops of) is the test's, never the user's: out of the repository.
	cmd.Env = append(os.Environ(), "PATH="+binDir()+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1",
		"XDG_STATE_HOME="+filepath.Join(filepath.Dir(l.dir), "state"))
	cmd.Env = append(cmd.Env, l.env...)
	return cmd
}

// asRoot is the command prefix that runs agentloop, and the agents it
// starts, as root in a user namespace of their own (unshare --user
// --map-root-user: unshare execs agentloop, so signals reach it as they
// would directly), whoever runs the tests: what a CLI does as root is tested
// on any runner. Without unshare, or where the kernel refuses unprivileged
// user namespaces, the test skips with the reason (fails under CI=true).
func asRoot(t *testing.T) []string {
	t.Helper()
	argv := []string{testenv.NeedTool(t, "unshare"), "--user", "--map-root-user"}
	out, err := exec.CommandContext(t.Context(), argv[0], append(argv[1:], "id", "-u")...).CombinedOutput()
	if err == nil && strings.TrimSpace(string(out)) == "0" {
		return argv
	}
	msg := fmt.Sprintf("cannot run as root in a user namespace (%s: %v: %s)", strings.Join(argv, " "), err, strings.TrimSpace(string(out)))
	if testenv.CI() {
		t.Fatalf("%s; CI=true, so the runner must allow unprivileged user namespaces", msg)
	}
	t.Skip(msg)
	return nil
}

// run writes the configuration, runs `agentloop run build` to its end and reads
// the report.
func (l *loop) run(t *testing.T) outcome {
	t.Helper()
	l.config(t)
	ctx, cancel := context.WithTimeout(t.Context(), 12*time.Minute)
	defer cancel()
	var o outcome
	var stdout, stderr bytes.Buffer
	cmd := l.command(ctx, "run", "build")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	o.stdout, o.stderr, o.code = stdout.String(), stderr.String(), exitCode(t, err)
	l.readReport(t, &o)
	return o
}

func (l *loop) readReport(t *testing.T, o *outcome) {
	t.Helper()
	out, err := l.command(t.Context(), "report", "build", "--format", "json").Output()
	if err != nil {
		return // no run state (a run that stopped before it began)
	}
	if err := json.Unmarshal(out, &o.report); err != nil {
		t.Fatalf("read the JSON report: %v\n%s", err, out)
	}
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	t.Fatalf("run agentloop: %v", err)
	return -1
}

// served is what a double served that its CLI reports as usage: every token
// (cached ones included) and the cached ones.
func served(s server, side bool) (tokens, cached int64) {
	for _, r := range s.Records() {
		if r.Usage == nil || (r.Side && !side) {
			continue
		}
		tokens += int64(r.Usage.Input + r.Usage.Output + r.Usage.Reasoning)
		cached += int64(r.Usage.Cached)
	}
	return tokens, cached
}

// modelRequests counts the requests to a model API (not a CLI's HEAD probe).
func modelRequests(s server) int {
	n := 0
	for _, r := range s.Records() {
		if r.API != "other" {
			n++
		}
	}
	return n
}

func fixed(t *testing.T, dir string) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "calc.go"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), "return a + b")
}

// checkUsage: the tokens recorded are the tokens served, and the cost is
// reported, estimated or unknown — never a silent 0.
func checkUsage(t *testing.T, o outcome, a *agent) {
	t.Helper()
	s := o.report.Summary
	tokens, cached := served(a.srv, a.cli.countsSide)
	if a.cli.noTokens {
		if s.Tokens != nil {
			t.Errorf("%s reports no token counts, yet %d tokens are recorded as known", a.cli.name, *s.Tokens)
		}
		if s.CostUSD != nil && !s.Total.CostEstimated {
			t.Errorf("%s reports no cost, yet $%v is recorded as known", a.cli.name, *s.CostUSD)
		}
		return
	}
	if s.Tokens == nil {
		t.Errorf("tokens unknown; the double served %d", tokens)
	} else if *s.Tokens != tokens {
		t.Errorf("tokens recorded %d, the double served %d (cached %d)", *s.Tokens, tokens, cached)
	}
	if s.Total.CacheRead != cached {
		t.Errorf("cached tokens recorded %d, the double served %d", s.Total.CacheRead, cached)
	}
	if s.CostUSD != nil && *s.CostUSD == 0 && !s.Total.CostEstimated {
		t.Errorf("cost recorded as a known $0 for %d tokens: it must be reported, estimated or unknown", tokens)
	}
}
