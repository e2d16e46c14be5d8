//go:build temporal

package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/fakeagent"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/testenv"
)

// fakeAgentEnv makes this test binary the fake agent when it is started as one.
const fakeAgentEnv = "AGENTLOOP_TEST_FAKEAGENT"

func TestMain(m *testing.M) {
	if os.Getenv(fakeAgentEnv) == "1" {
		os.Exit(fakeagent.Main())
	}
	os.Exit(m.Run())
}

// TestTemporalGraphRealServer runs a task graph of four tasks with the fake
// agent on a real Temporal dev server and an in-process worker: one and two in
// parallel, three after one, four escalating. `run --tasks --engine temporal`
// ends asking for a human; `report` shows the graph; `resume --guidance`
// reaches four's run workflow; the graph then finishes and merges every
// branch back into the repository.
func TestTemporalGraphRealServer(t *testing.T) {
	testenv.NeedTool(t, "git")
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	plans := map[string]string{
		"one":   "write one.txt one\n",
		"two":   "write two.txt two\n",
		"three": "expect-prompt Write three.txt\nwrite three.txt three\n",
		"four":  "[1]\nprint nothing to do\n[2]\nexpect-prompt keep it small\nwrite four.txt four\n",
	}
	cfg := "defaults:\n  gates: [{name: check, run: \"true\"}]\nprocedures:\n"
	for name, p := range plans {
		plan := filepath.Join(aux, name+".txt")
		writeFile(t, plan, p)
		cfg += fmt.Sprintf("  %s:\n    agent: {cmd: [%q], env: {%s: \"1\", FAKEAGENT_PLAN: %q, FAKEAGENT_DIR: %q}}\n",
			name, exe, fakeAgentEnv, plan, filepath.Join(aux, name))
		if name == "four" {
			cfg += "    gates: [{name: done, run: \"test -f four.txt\"}]\n    limits: {max_iterations: 1}\n"
		}
	}
	writeFile(t, filepath.Join(repo, "agentloop.yaml"), cfg)
	writeFile(t, filepath.Join(repo, ".gitignore"), ".agentloop/\n")
	writeFile(t, filepath.Join(repo, "tasks.yaml"), `parallel: 2
tasks:
  - {id: one, title: Write one.txt, procedure: one}
  - {id: two, title: Write two.txt, procedure: two}
  - {id: three, title: Write three.txt, procedure: three, depends_on: [one]}
  - {id: four, title: Write four.txt, procedure: four}
`)
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "start")

	env := map[string]string{
		"AGENTLOOP_TEMPORAL_ADDRESS":    addr,
		"AGENTLOOP_TEMPORAL_TASK_QUEUE": "graph-test",
	}
	deps := func(out, errOut io.Writer) Deps {
		d := Std()
		d.Stdout, d.Stderr = out, errOut
		d.Getenv = func(k string) string {
			if v, ok := env[k]; ok {
				return v
			}
			return os.Getenv(k)
		}
		d.Getwd = func() (string, error) { return repo, nil }
		d.IsTerminal = func(io.Writer) bool { return false }
		return d
	}
	run := func(args ...string) (stdout, stderr string, err error) {
		var o, e bytes.Buffer
		err = Run(t.Context(), args, deps(&o, &e))
		return o.String(), e.String(), err
	}
	// The server listens before it serves: ask until it answers.
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, _, err := run("status", "--engine", "temporal")
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dev server does not answer: %v", err)
		}
		time.Sleep(200 * time.Millisecond) // no readiness event to wait for
	}
	wctx, stopWorker := context.WithCancel(t.Context())
	var wout, werr testenv.Output
	workerDone := make(chan error, 1)
	go func() { workerDone <- Run(wctx, []string{"worker"}, deps(&wout, &werr)) }()
	defer func() {
		stopWorker()
		if err := <-workerDone; err != nil {
			t.Errorf("worker: %v", err)
		}
		if t.Failed() {
			t.Logf("worker output:\n%s\n%s", wout.String(), werr.String())
		}
	}()

	stdout, stderr, err := run("run", "--tasks", "tasks.yaml", "--engine", "temporal")
	if ExitCode(err) != ExitEscalated {
		t.Fatalf("run --tasks: exit %d (%v), want %d\n%s\n%s", ExitCode(err), err, ExitEscalated, stdout, stderr)
	}
	for _, want := range []string{"Starting task graph tasks on Temporal", "Task one succeeded after 1 iteration",
		"Task three succeeded", "Task four escalated", "agentloop resume tasks-four --guidance"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("run --tasks said:\n%s\nwant %q", stderr, want)
		}
	}
	stdout, _, err = run("report", "tasks", "--engine", "temporal", "--format", "json")
	if err != nil || !strings.Contains(stdout, `"four"`) || !strings.Contains(stdout, `"escalated"`) {
		t.Errorf("report of the waiting graph: %v\n%s", err, stdout)
	}
	stdout, _, err = run("status", "--engine", "temporal")
	if err != nil || !strings.Contains(stdout, "tasks-one") || !strings.Contains(stdout, "tasks-four") {
		t.Errorf("status: %v\n%s", err, stdout)
	}

	stdout, stderr, err = run("resume", "tasks-four", "--guidance", "keep it small", "--engine", "temporal")
	if err != nil {
		t.Fatalf("resume --guidance: %v\n%s\n%s", err, stdout, stderr)
	}
	c, err := temporal.Dial(t.Context(), temporal.Server{Address: addr, Namespace: "default"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var res temporal.GraphResult
	if err := c.GetWorkflow(t.Context(), temporal.GraphWorkflowID("tasks"), "").Get(t.Context(), &res); err != nil {
		t.Fatalf("the graph's workflow: %v", err)
	}
	for _, id := range []string{"one", "two", "three", "four"} {
		if o := res.Outcomes[id]; o.State != tasks.StateSucceeded {
			t.Errorf("task %s: %s (%s), want succeeded", id, o.State, o.Reason)
		}
	}
	if o := res.Outcomes["four"]; o.Iterations != 2 {
		t.Errorf("task four: %d iterations, want 2 (one before the guidance, one after)", o.Iterations)
	}
	for _, f := range []string{"one.txt", "two.txt", "three.txt", "four.txt"} {
		if _, err := os.Stat(filepath.Join(repo, f)); err != nil {
			t.Errorf("%s not merged back: %v", f, err)
		}
	}
	if log := git(t, repo, "log", "--oneline"); !strings.Contains(log, "Merge branch 'agentloop/tasks/four'") {
		t.Errorf("git log:\n%s\nwant four's branch merged", log)
	}
	// The files a local run writes for a human are written on the worker.
	for _, f := range []string{"iter-001/decision.yaml", "escalation.md"} {
		if m, _ := filepath.Glob(filepath.Join(repo, ".agentloop", "runs", "tasks-four", "*", f)); len(m) != 1 {
			t.Errorf("task four's %s: found %v, want one", f, m)
		}
	}
	stdout, _, err = run("report", "tasks", "--engine", "temporal")
	if err != nil || strings.Contains(stdout, "escalated") {
		t.Errorf("report of the ended graph: %v\n%s", err, stdout)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
