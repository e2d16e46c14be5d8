//go:build temporal && unix

// The tests of this file run the agentloop command (this test binary, see
// TestMain), whose Temporal wiring is built only with the tag temporal.

package temporal_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/cli"
	"github.com/agentloop/agentloop/internal/fakeagent"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/testenv"
)

// TestMain lets the test binary be the agentloop command and the fake agent
// (by the name it is started under), so that the end-to-end tests below run
// real worker processes that can be killed.
func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case "agentloop":
		os.Exit(cli.Main(os.Args[1:], cli.Std()))
	case "fakeagent":
		os.Exit(fakeagent.Main())
	}
	temporal.SayServerTier(true)
	os.Exit(m.Run())
}

// fleet is a dev server, the agentloop command and the fake agent on PATH, and
// the environment the processes it starts share.
type fleet struct {
	t   *testing.T
	srv *temporal.DevServer
	dir string   // the test's folder
	env []string // of every process started
	// files are committed in the repository besides README.md and .gitignore.
	files map[string]string
}

func newFleet(t *testing.T) *fleet {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: a dev server and worker processes")
	}
	testenv.NeedTool(t, "git")
	srv := temporal.StartDevServer(t)
	srv.Dial(t).Close() // the processes started next give up on a server that does not answer
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"agentloop", "fakeagent"} {
		if err := os.Symlink(self, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	f := &fleet{t: t, srv: srv, dir: dir}
	f.env = append(os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"FAKEAGENT_DIR="+filepath.Join(dir, "fakeagent"), "FAKEAGENT_PLAN="+filepath.Join(dir, "plan.txt"),
		"AGENTLOOP_TEMPORAL_ADDRESS="+srv.Addr(), "AGENTLOOP_TEMPORAL_TASK_QUEUE=agentloop-test",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
	)
	return f
}

// plan writes the fake agent's plan.
func (f *fleet) plan(text string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, "plan.txt"), []byte(text), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// repo makes a bare repository with one commit and returns clones of it.
func (f *fleet) repo(clones ...string) []string {
	f.t.Helper()
	remote := filepath.Join(f.dir, "remote.git")
	seed := filepath.Join(f.dir, "seed")
	f.git(f.dir, "init", "-q", "--bare", remote)
	f.git(f.dir, "clone", "-q", remote, seed)
	files := map[string]string{"README.md": "a project\n", ".gitignore": ".agentloop/\n"}
	maps.Copy(files, f.files)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(seed, name), []byte(text), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
	f.git(seed, "add", "-A")
	f.git(seed, "commit", "-q", "-m", "start")
	f.git(seed, "push", "-q", "origin", "HEAD")
	var dirs []string
	for _, c := range clones {
		d := filepath.Join(f.dir, c)
		f.git(f.dir, "clone", "-q", remote, d)
		dirs = append(dirs, d)
	}
	return dirs
}

// repos makes a bare repository with one commit and n clones of it, named
// repo-00 on; it returns their names and folders.
func (f *fleet) repos(n int) (names, clones []string) {
	f.t.Helper()
	for i := range n {
		names = append(names, fmt.Sprintf("repo-%02d", i))
	}
	return names, f.repo(names...)
}

func (f *fleet) git(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, f.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// proc is an agentloop process started by a test, or an agentloop command
// line run in this process ([fleet.follow]).
type proc struct {
	cmd  *exec.Cmd // nil for a command line run in this process
	args []string
	out  testenv.Output
	done chan struct{}
	err  error              // the process's
	code int                // the command line's run in this process
	stop context.CancelFunc // the command line's run in this process
}

// start starts agentloop in dir, in a process group of its own; it ends
// when the test does, or the test binary dies.
func (f *fleet) start(dir string, args ...string) *proc {
	f.t.Helper()
	p := &proc{cmd: exec.Command(filepath.Join(f.dir, "bin", "agentloop"), args...), args: args, done: make(chan struct{})}
	p.cmd.Dir, p.cmd.Env = dir, f.env
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	testenv.EndsWithTest(p.cmd) // a follower would go on asking a server the test killed
	if err := p.cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	f.cleanup(p)
	return p
}

// follow runs the agentloop command line in dir in this process, as its
// main would in a process of its own (the agentloop command's code, from its
// flags to its exit code), with the fleet's environment: cheaper than a
// process when many run at once. It is interrupted when the test ends.
func (f *fleet) follow(dir string, args ...string) *proc {
	f.t.Helper()
	ctx, stop := context.WithCancel(context.WithoutCancel(f.t.Context()))
	p := &proc{args: args, done: make(chan struct{}), stop: stop}
	env := map[string]string{}
	for _, kv := range f.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	d := cli.Std()
	d.Stdin, d.Stdout, d.Stderr = strings.NewReader(""), &p.out, &p.out
	d.Getenv = func(k string) string { return env[k] }
	d.Environ = func() []string { return f.env }
	d.Getwd = func() (string, error) { return dir, nil }
	go func() {
		err := cli.Run(ctx, args, d)
		if err != nil {
			fmt.Fprintf(&p.out, "agentloop: %v\n", err)
		}
		p.code = cli.ExitCode(err)
		close(p.done)
	}()
	f.cleanup(p)
	return p
}

// cleanup ends p when the test ends, fails the test if the race detector
// reported in p (the test binary, built with -race), and shows its output if
// the test failed.
func (f *fleet) cleanup(p *proc) {
	f.t.Cleanup(func() {
		p.kill()
		if p.cmd != nil && strings.Contains(p.out.String(), "WARNING: DATA RACE") {
			// A test binary built with -race is the agentloop process too.
			f.t.Errorf("agentloop %s: the race detector reported a data race", strings.Join(p.args, " "))
		}
		if f.t.Failed() {
			f.t.Logf("agentloop %s:\n%s", strings.Join(p.args, " "), p.out.String())
		}
	})
}

// kill kills the process's group with SIGKILL, as when its machine dies (a
// command line run in this process is interrupted), and waits for its end.
func (p *proc) kill() {
	select {
	case <-p.done:
	default:
		if p.cmd == nil {
			p.stop()
		} else {
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		}
		<-p.done
	}
}

// wait waits for the process to end and returns its exit code.
func (p *proc) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(limit):
		t.Fatalf("agentloop %s still running after %s:\n%s", strings.Join(p.args, " "), limit, p.out.String())
	}
	if p.cmd == nil {
		return p.code
	}
	if ee, ok := errors.AsType[*exec.ExitError](p.err); ok {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
	return 0
}

// run runs agentloop in dir to its end and returns its exit code.
func (f *fleet) run(dir string, args ...string) (int, string) {
	f.t.Helper()
	p := f.start(dir, args...)
	code := p.wait(f.t, 2*time.Minute)
	return code, p.out.String()
}

// waitFile waits until the file exists (the fake agent writes it when it hangs).
func (f *fleet) waitFile(path string) []byte {
	f.t.Helper()
	return f.waitFileFor(path, time.Minute)
}

// waitFileFor waits up to limit until the file exists.
func (f *fleet) waitFileFor(path string, limit time.Duration) []byte {
	f.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return b
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("%s did not appear", path)
		}
		time.Sleep(50 * time.Millisecond) // a file written by another process: nothing to wait on
	}
}

// agentsGone checks that the fake agents a dead worker started (their pids
// are in the file), and what they started, end by themselves within a few
// seconds (the parent-death signal and the watchdog): the test kills none. It
// returns how long the last took to go, and removes the file.
func (f *fleet) agentsGone() time.Duration {
	f.t.Helper()
	file := filepath.Join(f.dir, "fakeagent", "pids")
	b := f.waitFile(file)
	start := time.Now()
	const limit = 10 * time.Second // 5 s asked, with room for a loaded machine
	for _, l := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(l)
		if err != nil {
			continue
		}
		for alive(pid) {
			if time.Since(start) > limit {
				f.t.Errorf("agent process %d still alive %s after its worker died", pid, limit)
				break
			}
			time.Sleep(20 * time.Millisecond) // a process of another parent: nothing to wait on
		}
	}
	if err := os.Remove(file); err != nil {
		f.t.Fatal(err)
	}
	return time.Since(start)
}

// alive reports whether the process runs (a zombie is dead), from /proc.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, ok := strings.Cut(string(b), ") ")
	return ok && !strings.HasPrefix(rest, "Z")
}

// view is the state on the server of the run name, of whichever repository
// started it (the test's runs have names of their own).
func (f *fleet) view(name string) temporal.View {
	f.t.Helper()
	c := f.srv.Dial(f.t)
	defer c.Close()
	keys, err := temporal.Names(context.WithoutCancel(f.t.Context()), c)
	if err != nil {
		f.t.Fatal(err)
	}
	key := name
	for _, k := range keys {
		if n, _ := temporal.Unscoped(k); n == name {
			key = k
			break
		}
	}
	return f.query(key)
}

// keyIn is the key of the run name of the repository cloned in clone.
func keyIn(clone, name string) string {
	return temporal.Scoped(name, temporal.KnownRepoID(filepath.Join(clone, ".agentloop")))
}

// query is the state on the server of the run key.
func (f *fleet) query(key string) temporal.View {
	f.t.Helper()
	c := f.srv.Dial(f.t)
	defer c.Close()
	v, err := temporal.Query(context.WithoutCancel(f.t.Context()), c, key)
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

func (f *fleet) read(path string) string {
	f.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// checkIterations: the run recorded iterations 1 to n, each once.
func checkIterations(t *testing.T, v temporal.View, n int) {
	t.Helper()
	if err := iterationsOnce(v, n); err != nil {
		t.Error(err)
	}
}

// iterationsOnce says how the run's iterations are not 1 to n, each once;
// nil when they are.
func iterationsOnce(v temporal.View, n int) error {
	var got []int
	for _, r := range v.State.History {
		got = append(got, r.N)
	}
	if v.State.TotalIterations != n || len(got) != n || got[n-1] != n {
		return fmt.Errorf("iterations %v, %d in all; want 1 to %d, each once", got, v.State.TotalIterations, n)
	}
	return nil
}

// The fake agent's plan of the kill tests: each call adds a line to notes.txt;
// the second leaves a partial line and hangs (the iteration its worker is
// killed in).
const hangInTheSecond = `[2]
append notes.txt partial\n
hang
[*]
append notes.txt iteration\n
`

// TestWorkerKilledMidIteration: the worker running an iteration is killed
// with SIGKILL; a worker started again under the same queue gets the step
// again once its heartbeat is missed, starts it from the iteration's start
// checkpoint (the partial work of the dead attempt is gone), and finishes the
// run with each iteration counted once.
func TestWorkerKilledMidIteration(t *testing.T) {
	f := newFleet(t)
	work := f.repo("work")[0]
	f.plan(hangInTheSecond)
	w1 := f.start(work, "worker", "--queue", "machine-1", "--allow-cmd", "fakeagent")
	run := f.start(work, "run", "--engine", "temporal", "--agent-cmd", "fakeagent", "--max-iterations", "3", "--heartbeat-timeout", "3s")
	f.waitFile(filepath.Join(f.dir, "fakeagent", "pids")) // the second call hangs
	w1.kill()
	f.agentsGone()
	if !strings.Contains(f.read(filepath.Join(work, "notes.txt")), "partial") {
		t.Fatal("the killed iteration left no partial work: the test would not see it undone")
	}
	f.start(work, "worker", "--queue", "machine-1", "--allow-cmd", "fakeagent")
	if code := run.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("run exited %d:\n%s", code, run.out.String())
	}
	if got := f.read(filepath.Join(work, "notes.txt")); got != "iteration\niteration\niteration\n" {
		t.Errorf("notes.txt = %q: want one line per iteration, the killed attempt's undone", got)
	}
	v := f.view("build")
	if v.State.Status != state.StatusCompleted {
		t.Errorf("run %s (%s), want completed", v.State.Status, v.State.Reason)
	}
	checkIterations(t, v, 3)
	if calls := strings.TrimSpace(f.read(filepath.Join(f.dir, "fakeagent", "calls"))); calls != "4" {
		t.Errorf("the agent was called %s times, want 4 (iteration 2 twice)", calls)
	}
}

// TestWorkTreeRebuiltOnAnotherWorker: two workers hold different clones of one
// bare remote. The run's steps go to the worker that took its first one; that
// worker is killed for good mid-iteration; once nobody takes the step from its
// queue, the other worker takes it, rebuilds the work tree in its own clone
// from the last checkpoint on the remote, and finishes the run.
func TestWorkTreeRebuiltOnAnotherWorker(t *testing.T) {
	f := newFleet(t)
	clones := f.repo("a", "b")
	a, b := clones[0], clones[1]
	f.plan(hangInTheSecond)
	v := f.takeOver(a, b, 3)
	if got := f.read(filepath.Join(a, "notes.txt")); got != "iteration\npartial\n" {
		t.Errorf("clone a: notes.txt = %q, want what the dead worker left", got)
	}
	if got := f.read(filepath.Join(b, "notes.txt")); got != "iteration\niteration\niteration\n" {
		t.Errorf("clone b: notes.txt = %q: want iteration 1's work rebuilt, then iterations 2 and 3", got)
	}
	// The remote holds one ref for the run, its journal, which names the
	// run's checkpoints.
	remote := filepath.Join(f.dir, "remote.git")
	journal := fmt.Sprintf("refs/agentloop/build/%s/journal", v.State.RunID)
	if refs := f.git(remote, "for-each-ref", "--format=%(refname)", "refs/agentloop/"); refs != journal+"\n" {
		t.Errorf("the remote's checkpoint refs:\n%s\nwant only %s", refs, journal)
	}
	if msg, want := f.git(remote, "log", "-1", "--format=%B", journal), fmt.Sprintf(" refs/agentloop/build/%s/iter-3\n", v.State.RunID); !strings.Contains(msg, want) {
		t.Errorf("the remote's journal of the run:\n%s\nnames no%s", msg, want)
	}
}

// TestServerKilledWhileWaitingForGuidance: the dev server is killed with
// SIGKILL while a run waits for guidance; started again on its file, `resume
// --guidance` reaches the run and it finishes; status reads how it ended.
func TestServerKilledWhileWaitingForGuidance(t *testing.T) {
	f := newFleet(t)
	work := f.repo("work")[0]
	f.plan("[3]\nexpect-prompt Create fixed.txt\nwrite fixed.txt done\n[*]\nprint looking around, changing nothing\n")
	f.start(work, "worker", "--allow-cmd", "fakeagent", "--allow-cmd", "test -f fixed.txt")
	code, out := f.run(work, "run", "--engine", "temporal", "--agent-cmd", "fakeagent", "--gate", "test -f fixed.txt",
		"--max-iterations", "2", "--failure-threshold", "5")
	if code != 4 || !strings.Contains(out, "agentloop resume build --guidance") {
		t.Fatalf("run exited %d, want 4 (escalated) and how to resume:\n%s", code, out)
	}
	f.srv.Kill()
	f.srv.Restart(t)
	f.srv.Dial(t).Close()
	code, out = f.run(work, "resume", "build", "--engine", "temporal", "--guidance", "Create fixed.txt at the top")
	if code != 0 || !strings.Contains(out, "Guidance sent to run build") {
		t.Fatalf("resume exited %d, want 0:\n%s", code, out)
	}
	if !strings.Contains(out, "continuing from your work tree") {
		t.Errorf("the answer does not say what the work tree holds:\n%s", out)
	}
	code, out = f.run(work, "status", "build", "--engine", "temporal")
	if code != 0 || !strings.Contains(out, "succeeded") {
		t.Errorf("status exited %d, want the run succeeded:\n%s", code, out)
	}
	v := f.view("build")
	if v.State.Status != state.StatusSucceeded || v.State.TotalIterations != 3 {
		t.Errorf("run %s after %d iterations, want succeeded after 3", v.State.Status, v.State.TotalIterations)
	}
}

// TestDirtyStartRebuiltOnAnotherWorker: a run starts on uncommitted changes
// and its worker is killed for good in iteration 1, before any iteration
// ended. The iteration's start checkpoint was pushed when it was taken, so the
// other worker rebuilds the work tree from it, the uncommitted changes
// included, and finishes the run.
func TestDirtyStartRebuiltOnAnotherWorker(t *testing.T) {
	f := newFleet(t)
	clones := f.repo("a", "b")
	a, b := clones[0], clones[1]
	if err := os.WriteFile(filepath.Join(a, "draft.txt"), []byte("uncommitted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.plan("[1]\nappend notes.txt partial\\n\nhang\n[*]\nappend notes.txt iteration\\n\n")
	f.takeOver(a, b, 2)
	if got := f.read(filepath.Join(b, "draft.txt")); got != "uncommitted\n" {
		t.Errorf("clone b: draft.txt = %q, want the uncommitted change the run started on", got)
	}
	if got := f.read(filepath.Join(b, "notes.txt")); got != "iteration\niteration\n" {
		t.Errorf("clone b: notes.txt = %q: want iterations 1 and 2, the killed attempt's work undone", got)
	}
}

// takeOver runs build with the fake agent in clone a, on a worker holding a,
// until the agent hangs; then a worker holding clone b starts and a's is
// killed for good. It returns the run once it ended, checked completed after
// the iterations, each counted once.
func (f *fleet) takeOver(a, b string, iterations int) temporal.View {
	f.t.Helper()
	wa := f.start(a, "worker", "--queue", "machine-a", "--work-tree", a, "--checkpoint-remote", "origin", "--allow-cmd", "fakeagent")
	run := f.start(a, "run", "--engine", "temporal", "--agent-cmd", "fakeagent", "--max-iterations", strconv.Itoa(iterations), "--heartbeat-timeout", "3s")
	f.waitFile(filepath.Join(f.dir, "fakeagent", "pids"))
	f.start(b, "worker", "--queue", "machine-b", "--work-tree", b, "--checkpoint-remote", "origin", "--allow-cmd", "fakeagent")
	wa.kill()
	f.agentsGone()
	if code := run.wait(f.t, 2*time.Minute); code != 0 {
		f.t.Fatalf("run exited %d:\n%s", code, run.out.String())
	}
	v := f.view("build")
	if v.State.Status != state.StatusCompleted {
		f.t.Errorf("run %s (%s), want completed", v.State.Status, v.State.Reason)
	}
	checkIterations(f.t, v, iterations)
	return v
}

// TestGraphTasksOnTwoWorkers: a graph of three tasks, two at once, started in
// one clone of a bare remote, with two workers each holding its own clone (at
// another path) and pushing to that remote. Task two's worker is killed for
// good while its agent works; the other worker rebuilds task two's worktree in
// its own clone from the start checkpoint and finishes it; each task's work is
// committed where its work tree is and pushed, and the graph's worker (the one
// holding the graph's clone, --merge-queue) merges every task back.
func TestGraphTasksOnTwoWorkers(t *testing.T) {
	f := newFleet(t)
	f.files = map[string]string{"tasks.yaml": `tasks:
  - {id: one, title: Write one.txt, procedure: one}
  - {id: two, title: Write two.txt, procedure: two}
  - {id: three, title: Write three.txt, procedure: three}
`}
	cfg := "procedures:\n"
	for _, id := range []string{"one", "two", "three"} {
		plan, dir := filepath.Join(f.dir, id+".plan"), filepath.Join(f.dir, "agent-"+id)
		text := "write " + id + ".txt " + id + "\n"
		if id == "two" { // hangs in its first call; killAgents finds it
			plan, dir = filepath.Join(f.dir, "plan.txt"), filepath.Join(f.dir, "fakeagent")
			text = "[1]\nappend two.txt partial\\n\nhang\n[*]\nwrite two.txt two\n"
		}
		if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg += fmt.Sprintf("  %s:\n    agent: {cmd: [%q], env: {FAKEAGENT_PLAN: %q, FAKEAGENT_DIR: %q}}\n    gates: [{name: done, run: \"test -f %s.txt\"}]\n",
			id, filepath.Join(f.dir, "bin", "fakeagent"), plan, dir, id)
	}
	f.files["agentloop.yaml"] = cfg
	clones := f.repo("a", filepath.Join("elsewhere", "b"))
	workers := map[string]*proc{}
	startWorker := func(clone string) {
		workers[clone] = f.start(clone, "worker", "--queue", "machine-"+filepath.Base(clone), "--work-tree", clone, "--checkpoint-remote", "origin")
	}
	for _, c := range clones {
		startWorker(c)
	}
	a := clones[0]
	run := f.start(a, "run", "--tasks", "tasks.yaml", "--engine", "temporal", "--parallel", "2", "--merge-queue", "machine-a", "--heartbeat-timeout", "3s")
	f.waitFile(filepath.Join(f.dir, "fakeagent", "pids"))
	holder := f.runOf("tasks-two", clones...)
	other := clones[0]
	if holder == other {
		other = clones[1]
	}
	workers[holder].kill()
	f.agentsGone()
	f.waitRun("tasks-two", other)
	if holder == a {
		startWorker(a) // the graph's repository is there: the merge-back waits for it
	}
	if code := run.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("run --tasks exited %d:\n%s", code, run.out.String())
	}
	ran := map[string][]string{}
	for _, id := range []string{"one", "two", "three"} {
		for _, c := range clones {
			if f.runOf("tasks-"+id, c) != "" {
				ran[c] = append(ran[c], id)
			}
		}
		if _, err := os.Stat(filepath.Join(a, id+".txt")); err != nil {
			t.Errorf("task %s not merged back into the graph's clone: %v", id, err)
		}
	}
	t.Logf("tasks run by clone: %v (task two taken over from %s)", ran, holder)
	if len(ran[clones[0]]) == 0 || len(ran[clones[1]]) == 0 {
		t.Errorf("tasks run by clone: %v; want each worker to have run one", ran)
	}
	if got := f.read(filepath.Join(a, "two.txt")); strings.Contains(got, "partial") {
		t.Errorf("two.txt = %q: the killed attempt's work was merged", got)
	}
	log := f.git(a, "log", "--oneline")
	for _, id := range []string{"one", "two", "three"} {
		if !strings.Contains(log, "Merge branch 'agentloop/tasks/"+id+"'") {
			t.Errorf("git log of the graph's clone:\n%s\nwant task %s's branch merged", log, id)
		}
	}
	if refs := f.git(a, "ls-remote", "origin", "refs/heads/agentloop/tasks/*"); refs != "" {
		t.Errorf("the tasks' branches left on the remote after the merge:\n%s", refs)
	}
	v := f.view("tasks-two")
	if v.State.Status != state.StatusSucceeded {
		t.Errorf("task two's run %s (%s), want succeeded", v.State.Status, v.State.Reason)
	}
	checkIterations(t, v, 1)
}

// runOf is the first of the clones holding the run folder of the run name, ""
// for none.
func (f *fleet) runOf(name string, clones ...string) string {
	for _, c := range clones {
		if m, _ := filepath.Glob(filepath.Join(c, ".agentloop", "runs", name, "*")); len(m) > 0 {
			return c
		}
	}
	return ""
}

// waitRun waits until the clone holds the run folder of the run name.
func (f *fleet) waitRun(name, clone string) {
	f.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for f.runOf(name, clone) == "" {
		if time.Now().After(deadline) {
			f.t.Fatalf("run %s did not come to %s", name, clone)
		}
		time.Sleep(50 * time.Millisecond) // a folder made by another process: nothing to wait on
	}
}
