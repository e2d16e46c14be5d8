//go:build temporal

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agentloop/agentloop/internal/fakeagent"
	"github.com/agentloop/agentloop/internal/proc"
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
	fakeProcedures(t, repo, aux, map[string]string{
		"one":   "write one.txt one\n",
		"two":   "write two.txt two\n",
		"three": "expect-prompt Write three.txt\nwrite three.txt three\n",
		"four":  "[1]\nprint nothing to do\n[2]\nexpect-prompt keep it small\nwrite four.txt four\n",
	}, nil, map[string]string{"four": "    gates: [{name: done, run: \"test -f four.txt\"}]\n    limits: {max_iterations: 1}\n"})
	graphRepo(t, repo, `parallel: 2
tasks:
  - {id: one, title: Write one.txt, procedure: one}
  - {id: two, title: Write two.txt, procedure: two}
  - {id: three, title: Write three.txt, procedure: three, depends_on: [one]}
  - {id: four, title: Write four.txt, procedure: four}
`)
	run := cliOn(t, addr, repo)

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

	// The answer reaches four's run; the command then follows the graph, which
	// goes on by itself, to its end and exit code as run --tasks does.
	stdout, stderr, err = run("resume", "tasks-four", "--guidance", "keep it small", "--engine", "temporal")
	if ExitCode(err) != ExitOK {
		t.Fatalf("resume --guidance: %v\n%s\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stderr, "Merged task four") {
		t.Errorf("resume --guidance of a graph's task said:\n%s\nwant it to follow the graph to its merge", stderr)
	}
	c := dialTest(t, addr)
	var res temporal.GraphResult
	if err := c.GetWorkflow(t.Context(), graphWorkflowID(repo, "tasks"), "").Get(t.Context(), &res); err != nil {
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
	for _, f := range []string{"iter-001/decision.yaml", "escalation-*.md"} {
		if m, _ := filepath.Glob(filepath.Join(repo, ".agentloop", "runs", "tasks-four", "*", f)); len(m) != 1 {
			t.Errorf("task four's %s: found %v, want one", f, m)
		}
	}
	stdout, _, err = run("report", "tasks", "--engine", "temporal")
	if err != nil || strings.Contains(stdout, "escalated") {
		t.Errorf("report of the ended graph: %v\n%s", err, stdout)
	}
}

// TestTemporalGraphCancelResume: the workflow of a graph is cancelled while
// a task's agent works; the task's run is interrupted, its agent killed on
// the worker and its worktree kept, and the graph's report shows it
// interrupted. Running the same task file again resumes the graph: the task
// done before is not run again, the interrupted one continues, the one after
// it runs, and every branch is merged back. A graph still running is not
// started twice.
func TestTemporalGraphCancelResume(t *testing.T) {
	testenv.NeedTool(t, "git")
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	fakeProcedures(t, repo, aux, map[string]string{
		"quick": "write quick.txt quick\nprintfile " + claudeOutput(t) + "\n",
		"slow":  "[1]\nhang\n[*]\nwrite slow.txt slow\n",
		"after": "write after.txt after\n",
	}, map[string]string{"quick": "claude"}, nil)
	graphRepo(t, repo, `parallel: 2
tasks:
  - {id: quick, title: Write quick.txt, procedure: quick}
  - {id: slow, title: Write slow.txt, procedure: slow}
  - {id: after, title: Write after.txt, procedure: after, depends_on: [slow]}
`)
	run := cliOn(t, addr, repo)
	// The heartbeat brings slow's step the cancellation; a timeout short
	// enough for a loaded machine to miss it has the server try the hanging
	// step again, and the second attempt succeeds before the cancellation
	// (seen with 2s).
	first := inBackground(run, "run", "--tasks", "tasks.yaml", "--engine", "temporal", "--heartbeat-timeout", "10s")
	c := dialTest(t, addr)
	waitGraph(t, c, repo, "tasks", func(v temporal.GraphView) bool {
		return v.Outcomes["quick"].State == tasks.StateSucceeded && slices.Contains(v.Running, "slow")
	})
	pid := agentPID(t, filepath.Join(aux, "slow", "pids"))

	_, _, err := run("run", "--tasks", "tasks.yaml", "--engine", "temporal")
	if err == nil || !strings.Contains(err.Error(), "already running") || !strings.Contains(err.Error(), "agentloop report tasks --engine temporal") {
		t.Errorf("a second run of the running graph: %v, want it refused, saying how to follow it", err)
	}

	r := cancelGraph(t, c, repo, "tasks", first)
	if ExitCode(r.err) != ExitInterrupted || !strings.Contains(r.stderr, "Run the same command again to resume the graph") {
		t.Errorf("run --tasks of the cancelled graph: exit %d (%v), want %d and how to resume\n%s\n%s", ExitCode(r.err), r.err, ExitInterrupted, r.stdout, r.stderr)
	}
	// The graph ends once its tasks' steps stopped: the agent is gone.
	if proc.Alive(pid) {
		t.Errorf("the agent of the interrupted task (pid %d) is still there", pid)
	}
	if _, err := os.Stat(filepath.Join(repo, ".agentloop", "worktrees", "tasks", "slow")); err != nil {
		t.Errorf("the interrupted task's worktree: %v, want it kept", err)
	}
	stdout, _, err := run("report", "tasks", "--engine", "temporal", "--format", "json")
	if err != nil {
		t.Fatalf("report of the cancelled graph: %v\n%s", err, stdout)
	}
	var rep struct {
		Tasks []struct{ ID, State string }
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report of the cancelled graph: %v\n%s", err, stdout)
	}
	states := map[string]string{}
	for _, row := range rep.Tasks {
		states[row.ID] = row.State
	}
	if states["quick"] != "succeeded" || states["slow"] != "interrupted" {
		t.Errorf("report of the cancelled graph: %v\n%s", states, stdout)
	}

	// quick's run told the graph what its iteration spent, through the server.
	if told := spendSignals(t, c, graphWorkflowID(repo, "tasks")); len(told) != 1 || told[0].Run != "tasks-quick" || !told[0].Usage.TokensKnown || told[0].Usage.InputTokens == 0 {
		t.Errorf("the spend told to the graph: %+v, want one signal of quick's tokens", told)
	}

	stdout, stderr, err := run("run", "--tasks", "tasks.yaml", "--engine", "temporal")
	if ExitCode(err) != ExitOK || !strings.Contains(stderr, "Resuming task graph tasks") {
		t.Fatalf("run --tasks again: %v, want the graph resumed and finished\n%s\n%s", err, stdout, stderr)
	}
	for task, calls := range map[string]string{"quick": "1", "slow": "2", "after": "1"} {
		if got := strings.TrimSpace(readFile(t, filepath.Join(aux, task, "calls"))); got != calls {
			t.Errorf("task %s's agent was called %s times, want %s", task, got, calls)
		}
	}
	for _, f := range []string{"quick.txt", "slow.txt", "after.txt"} {
		if _, err := os.Stat(filepath.Join(repo, f)); err != nil {
			t.Errorf("%s not merged back: %v", f, err)
		}
	}
	if log := git(t, repo, "log", "--oneline"); strings.Count(log, "Merge branch") != 3 {
		t.Errorf("git log:\n%s\nwant the three branches merged once each", log)
	}
}

// TestTemporalGraphCancelledWhileCommitting: the graph's workflow is
// cancelled while the work of a task whose run succeeded is being committed
// (git held there by a wrapper until after the cancellation would have
// reached the commit): the commit is not cut, the graph ends interrupted with
// nothing merged, the task's branch holds its work, and running the task file
// again merges it.
func TestTemporalGraphCancelledWhileCommitting(t *testing.T) {
	realGit := testenv.NeedTool(t, "git")
	addr := testenv.TemporalServer(t)
	repo, aux, bin, mark := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	fakeProcedures(t, repo, aux, map[string]string{"a": "write a.txt a\n"}, nil, nil)
	graphRepo(t, repo, "tasks:\n  - {id: a, title: Write a.txt, procedure: a}\n")
	wrapper := filepath.Join(bin, "git")
	writeFile(t, wrapper, fmt.Sprintf(`#!/bin/sh
# The commit of a task's work says so, then waits to be let go.
case " $* " in
*" commit -q -F - "*)
	if [ ! -e %[1]q/go ]; then
		echo $$ >%[1]q/committing
		while [ ! -e %[1]q/go ]; do sleep 0.1; done
	fi
	;;
esac
exec %[2]q "$@"
`, mark, realGit))
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	run := cliOn(t, addr, repo)
	c := dialTest(t, addr)
	// A short heartbeat brings the commit's activity a cancellation soon.
	first := inBackground(run, "run", "--tasks", "tasks.yaml", "--engine", "temporal", "--heartbeat-timeout", "3s")
	agentPID(t, filepath.Join(mark, "committing")) // the held git's: the commit is under way
	if err := c.CancelWorkflow(t.Context(), graphWorkflowID(repo, "tasks"), ""); err != nil {
		t.Fatal(err)
	}
	// Twice the heartbeat's throttle: a cut commit would be cut by now.
	time.Sleep(6 * time.Second)
	writeFile(t, filepath.Join(mark, "go"), "")
	r := ended(t, first, time.Minute, "the graph's run, its workflow cancelled,")
	if ExitCode(r.err) != ExitInterrupted {
		t.Errorf("run --tasks of the cancelled graph: exit %d (%v), want %d\n%s\n%s", ExitCode(r.err), r.err, ExitInterrupted, r.stdout, r.stderr)
	}
	if log := git(t, repo, "log", "--format=%s", "agentloop/tasks/a"); !strings.Contains(log, "agentloop: task a") {
		t.Errorf("the branch of task a:\n%s\nwant its work committed though the graph was cancelled", log)
	}
	if _, err := os.Stat(filepath.Join(repo, "a.txt")); err == nil {
		t.Error("a.txt merged by the cancelled graph, want nothing merged")
	}
	stdout, stderr, err := run("run", "--tasks", "tasks.yaml", "--engine", "temporal")
	if ExitCode(err) != ExitOK {
		t.Fatalf("run --tasks again: %v, want a merged\n%s\n%s", err, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(repo, "a.txt")); err != nil {
		t.Errorf("a.txt not merged back: %v", err)
	}
	if got := strings.TrimSpace(readFile(t, filepath.Join(aux, "a", "calls"))); got != "1" {
		t.Errorf("task a's agent was called %s times, want once", got)
	}
}

// graphWorkflowID is the workflow ID of the graph name run in the repository
// at repo (its identity kept in its state folder).
func graphWorkflowID(repo, name string) string {
	return temporal.GraphWorkflowID(name, repoID(repo))
}

// waitGraph polls the query of the graph name of the repository at repo until
// ok says so (a query has no push).
func waitGraph(t *testing.T, c client.Client, repo, name string, ok func(temporal.GraphView) bool) temporal.GraphView {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		v, err := temporal.QueryGraph(t.Context(), c, name, repoID(repo))
		if err == nil && ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("task graph %s: gave up waiting (last %+v, %v)", name, v, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// spendSignals are the spend signals in the history of the workflow id.
func spendSignals(t *testing.T, c client.Client, id string) []temporal.TaskSpend {
	t.Helper()
	var told []temporal.TaskSpend
	it := c.GetWorkflowHistory(t.Context(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatalf("history of %s: %v", id, err)
		}
		sig := ev.GetWorkflowExecutionSignaledEventAttributes()
		if sig.GetSignalName() != temporal.SignalSpend {
			continue
		}
		var s temporal.TaskSpend
		if err := converter.GetDefaultDataConverter().FromPayloads(sig.GetInput(), &s); err != nil {
			t.Fatal(err)
		}
		told = append(told, s)
	}
	return told
}

// agentPID is the pid of the fake agent that hangs, once it wrote it.
func agentPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(50 * time.Millisecond) // written by another process: nothing to wait on
	}
}

// claudeOutput is a recorded Claude Code stream (its usage known), for the
// fake agent to print under the claude preset.
func claudeOutput(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "cmd", "agentloop", "testdata", "fake", "claude-ok.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fakeProcedures writes the configuration of repo: a procedure of each name
// whose agent is the fake agent playing its plan (its folder in aux), under
// the agent preset given for it (the output it reads), with the extra YAML
// lines given for it, and a gate that passes.
func fakeProcedures(t *testing.T, repo, aux string, plans, presets, extra map[string]string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := "defaults:\n  gates: [{name: check, run: \"true\"}]\nprocedures:\n"
	for name, p := range plans {
		plan := filepath.Join(aux, name+".txt")
		writeFile(t, plan, p)
		preset := ""
		if presets[name] != "" {
			preset = "preset: " + presets[name] + ", "
		}
		cfg += fmt.Sprintf("  %s:\n    agent: {%scmd: [%q], env: {%s: \"1\", IS_SANDBOX: \"1\", FAKEAGENT_PLAN: %q, FAKEAGENT_DIR: %q}}\n",
			name, preset, exe, fakeAgentEnv, plan, filepath.Join(aux, name))
		cfg += extra[name]
	}
	writeFile(t, filepath.Join(repo, "agentloop.yaml"), cfg)
}

// graphRepo makes repo a git repository of its configuration and the task
// file tasks.yaml.
func graphRepo(t *testing.T, repo, taskFile string) {
	t.Helper()
	writeFile(t, filepath.Join(repo, ".gitignore"), ".agentloop/\n")
	writeFile(t, filepath.Join(repo, "tasks.yaml"), taskFile)
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "start")
}

// cliOn is the agentloop command run in repo against the server at addr,
// once it answers, with a worker of its own started in this process for the
// test's length.
func cliOn(t *testing.T, addr, repo string, workerArgs ...string) func(args ...string) (stdout, stderr string, err error) {
	t.Helper()
	run := cliOnWith(t, addr, repo, nil, workerArgs...)
	return func(args ...string) (string, string, error) { return run(t.Context(), args...) }
}

// cliOnWith is cliOn with the commands' Deps changed by with (nil: none),
// each command run until ctx ends.
func cliOnWith(t *testing.T, addr, repo string, with func(*Deps), workerArgs ...string) func(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	t.Helper()
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
		if with != nil {
			with(&d)
		}
		return d
	}
	run := func(ctx context.Context, args ...string) (stdout, stderr string, err error) {
		var o, e bytes.Buffer
		err = Run(ctx, args, deps(&o, &e))
		return o.String(), e.String(), err
	}
	// The server listens before it serves: ask until it answers.
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, _, err := run(t.Context(), "status", "--engine", "temporal")
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
	go func() { workerDone <- Run(wctx, append([]string{"worker"}, workerArgs...), deps(&wout, &werr)) }()
	t.Cleanup(func() {
		stopWorker()
		if err := <-workerDone; err != nil {
			t.Errorf("worker: %v", err)
		}
		if t.Failed() {
			t.Logf("worker output:\n%s\n%s", wout.String(), werr.String())
		}
	})
	return run
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

// TestTemporalGraphMergeRules: the rules of a graph's merge hold on the
// Temporal engine as on the local one. a and b start together; a changes
// lib.txt and merges first (b's agent waits for a's work in the repository); b's own tree passes its gate, the merged result
// does not: b is not merged, run --tasks exits 4 and lists it with the command
// that answers it, and again when run again. resume without guidance is refused; with guidance, b's run
// starts again from the merged result with its graph's plan (its procedure's
// agent and gate), fixes it, and the graph goes on: b is merged, exit 0. A
// merge refused by uncommitted changes in the repository exits 4 too, listed.
func TestTemporalGraphMergeRules(t *testing.T) {
	testenv.NeedTool(t, "git")
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	fakeProcedures(t, repo, aux, map[string]string{
		"a": "replace lib.txt v1 v2\nwrite a.txt a\n",
		"b": "[1]\nwaitfor ../../../../a.txt\nwrite use.txt uses v1\n[*]\nexpect-prompt lib.txt is v2 now\nexpect-prompt its required gates fail once merged\nwrite use.txt uses v2\n",
		"c": "write c.txt c\n",
	}, nil, map[string]string{
		"a": "    gates: [{name: lib, run: \"grep -q v2 lib.txt\"}]\n",
		"b": "    gates: [{name: uses, run: \"grep -q \\\"$(cat lib.txt)\\\" use.txt\"}]\n    limits: {max_iterations: 2}\n",
	})
	writeFile(t, filepath.Join(repo, "lib.txt"), "v1\n")
	writeFile(t, filepath.Join(repo, "more.yaml"), "tasks:\n  - {id: c, title: Write c.txt, procedure: c}\n")
	graphRepo(t, repo, `parallel: 2
tasks:
  - {id: a, title: Move lib to v2, procedure: a}
  - {id: b, title: Use the lib, procedure: b}
`)
	run := cliOn(t, addr, repo)

	stdout, stderr, err := run("run", "--tasks", "tasks.yaml", "--engine", "temporal")
	if ExitCode(err) != ExitEscalated {
		t.Fatalf("run --tasks: exit %d (%v), want %d\n%s\n%s", ExitCode(err), err, ExitEscalated, stdout, stderr)
	}
	for _, want := range []string{"b (escalated: merge gates)", `then: its loop fixes the merged result in its worktree once you answer: agentloop resume tasks-b --guidance "..." --engine temporal`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run --tasks listed:\n%s\nwant %q", stdout, want)
		}
	}
	if _, err := os.Stat(filepath.Join(repo, "use.txt")); err == nil {
		t.Error("b was merged though its gate fails on the merged result")
	}
	// Run again without guidance: b stays escalated, not merged, listed again.
	stdout, stderr, err = run("run", "--tasks", "tasks.yaml", "--engine", "temporal")
	if ExitCode(err) != ExitEscalated || strings.Contains(stderr, "Merged task b") || !strings.Contains(stdout, "b (escalated: merge gates)") {
		t.Errorf("run --tasks again without guidance: exit %d (%v), want %d, b listed and not merged\n%s\n%s", ExitCode(err), err, ExitEscalated, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(repo, "use.txt")); err == nil {
		t.Fatal("b was merged by a plain run --tasks, though its gate fails on the merged result")
	}
	if _, stderr, err := run("resume", "tasks-b", "--engine", "temporal"); ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "resume it with --guidance") {
		t.Errorf("resume without guidance: exit %d (%v)\n%s", ExitCode(err), err, stderr)
	}
	stdout, stderr, err = run("resume", "tasks-b", "--guidance", "lib.txt is v2 now", "--engine", "temporal")
	if ExitCode(err) != ExitOK {
		t.Fatalf("resume --guidance: exit %d (%v)\n%s\n%s", ExitCode(err), err, stdout, stderr)
	}
	if !strings.Contains(stderr, "Task b goes on in its graph tasks") || !strings.Contains(stderr, "Merged task b") {
		t.Errorf("resume --guidance said:\n%s\nwant the graph to go on and merge b", stderr)
	}
	if got := readFile(t, filepath.Join(repo, "use.txt")); got != "uses v2" {
		t.Errorf("use.txt on main = %q, want b's fix", got)
	}

	// A merge the repository refuses: exit 4, listed; committed, it merges.
	writeFile(t, filepath.Join(repo, "lib.txt"), "mine\n")
	stdout, stderr, err = run("run", "--tasks", "more.yaml", "--engine", "temporal")
	if ExitCode(err) != ExitEscalated || !strings.Contains(stdout, "c (escalated: merge refused)") || !strings.Contains(stdout, "commit or stash your changes in the repository") {
		t.Errorf("run --tasks with a refused merge: exit %d (%v)\n%s\n%s", ExitCode(err), err, stdout, stderr)
	}
	git(t, repo, "commit", "-q", "-am", "mine")
	stdout, stderr, err = run("run", "--tasks", "more.yaml", "--engine", "temporal")
	if ExitCode(err) != ExitOK || !strings.Contains(stderr, "Merged task c") || strings.Contains(stdout, "Not merged") {
		t.Errorf("run --tasks again: %v\n%s\n%s", err, stdout, stderr)
	}
	if got := readFile(t, filepath.Join(repo, "lib.txt")); got != "mine\n" {
		t.Errorf("lib.txt = %q, want the person's change kept", got)
	}
}

// TestTemporalGraphResumeKeepsTheGraphsFlags: a graph given its agent, gate
// and limit as flags, with no configuration, on the Temporal engine. mine
// depends on dep and builds on its work: its agent copies dep.txt, which only
// dep's merged work holds, and the gate needs both files. mine's first loop
// does nothing and escalates (exit 4, with the command that answers it), dep
// merged already; resume tasks-mine --guidance, given no flag, runs it with the graph's
// agent and gate (not the default agent, which is not installed here), and
// the graph goes on: mine is merged, exit 0.
func TestTemporalGraphResumeKeepsTheGraphsFlags(t *testing.T) {
	testenv.NeedTool(t, "git")
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	agent := filepath.Join(aux, "agent.sh")
	writeFile(t, agent, `prompt=$(cat)
case "$(basename "$PWD")" in
dep) echo dep >dep.txt ;;
mine) case "$prompt" in *"copy dep.txt"*) cp dep.txt mine.txt ;; esac ;;
esac
`)
	graphRepo(t, repo, "tasks:\n  - {id: dep, title: Write dep.txt}\n  - {id: mine, title: Copy dep.txt, depends_on: [dep]}\n")
	gate := `test -f dep.txt && { [ "$(basename "$PWD")" = dep ] || test -f mine.txt; }`
	// The worker runs the commands of the graph's flags it was told to trust.
	run := cliOn(t, addr, repo, "--allow-cmd", "sh "+agent, "--allow-cmd", gate)
	stdout, stderr, err := run("run", "--tasks", "tasks.yaml", "--engine", "temporal", "--agent-cmd", "sh "+agent, "--gate", gate, "--max-iterations", "1")
	if ExitCode(err) != ExitEscalated {
		t.Fatalf("run --tasks: exit %d (%v), want %d\n%s\n%s", ExitCode(err), err, ExitEscalated, stdout, stderr)
	}
	if !strings.Contains(stderr, `agentloop resume tasks-mine --guidance "..." --engine temporal`) {
		t.Errorf("run --tasks said:\n%s\n%s\nwant mine's command", stdout, stderr)
	}
	// dep merged as soon as it was done, while mine waits.
	if got := readFile(t, filepath.Join(repo, "dep.txt")); got != "dep\n" {
		t.Errorf("dep.txt on main = %q, want dep's work merged", got)
	}
	stdout, stderr, err = run("resume", "tasks-mine", "--guidance", "copy dep.txt to mine.txt", "--engine", "temporal")
	if ExitCode(err) != ExitOK {
		t.Fatalf("resume --guidance: exit %d (%v)\n%s\n%s", ExitCode(err), err, stdout, stderr)
	}
	if !strings.Contains(stderr, "Merged task mine") {
		t.Errorf("resume --guidance said:\n%s\nwant mine merged", stderr)
	}
	if got := readFile(t, filepath.Join(repo, "mine.txt")); got != "dep\n" {
		t.Errorf("mine.txt on main = %q, want dep's file as mine's worktree had it", got)
	}
	if b := git(t, repo, "branch", "--list", "agentloop/*"); b != "" {
		t.Errorf("task branches left: %s", b)
	}
}
