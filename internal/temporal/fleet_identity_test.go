//go:build temporal && unix

package temporal_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTwoRepositoriesOneNamespace: two clones run the procedure build at
// once in one namespace, on one worker: each run is its own workflow (its ID
// carries its repository's identity) and works in its own clone; a second
// run of build in a clone whose run is going on is refused, naming where the
// running one was started; status in each clone shows its own run.
func TestTwoRepositoriesOneNamespace(t *testing.T) {
	f := newFleet(t)
	clones := f.repo("one", "two")
	release := filepath.Join(f.dir, "release")
	agent := func(who string) string {
		return "sh -c 'echo " + who + " > who.txt; while [ ! -f " + release + " ]; do sleep 0.1; done'"
	}
	f.start(clones[0], "worker", "--trust-input-commands")
	first := f.start(clones[0], "run", "--engine", "temporal", "--agent-cmd", agent("one"), "--max-iterations", "1")
	f.waitFile(filepath.Join(clones[0], "who.txt"))
	second := f.start(clones[1], "run", "--engine", "temporal", "--agent-cmd", agent("two"), "--max-iterations", "1")
	f.waitFile(filepath.Join(clones[1], "who.txt"))

	code, out := f.run(clones[0], "run", "--engine", "temporal", "--agent-cmd", agent("again"), "--max-iterations", "1")
	if code != 1 || !strings.Contains(out, "run build: the run is already running on Temporal") || !strings.Contains(out, "in "+clones[0]+",") {
		t.Errorf("a second run of build in clone one: exit %d, want 1 and the running one named with its work tree:\n%s", code, out)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, p := range []*proc{first, second} {
		if code := p.wait(t, 2*time.Minute); code != 0 {
			t.Errorf("run in clone %d exited %d:\n%s", i+1, code, p.out.String())
		}
	}
	for i, who := range []string{"one", "two"} {
		if got := strings.TrimSpace(f.read(filepath.Join(clones[i], "who.txt"))); got != who {
			t.Errorf("clone %s: who.txt = %q, want its own run's work", who, got)
		}
		code, out := f.run(clones[i], "status", "--engine", "temporal")
		if code != 0 || strings.Count(out, "build") != 1 || !strings.Contains(out, "completed") {
			t.Errorf("status in clone %s: exit %d, want its one run of build, completed:\n%s", who, code, out)
		}
	}
}

// TestWorkerRefusesInputCommands: a worker started without trust does not
// run an --agent-cmd or a --gate that a run's workflow input names and its
// configuration does not define: the run ends as a configuration error
// (exit 2) with the message, said once, naming the command and the flag
// that trusts it, and nothing ran; a gate of the
// clone's configuration and a command allowed with --allow-cmd run.
func TestWorkerRefusesInputCommands(t *testing.T) {
	f := newFleet(t)
	f.files = map[string]string{"agentloop.yaml": "procedures:\n  build:\n    gates: [{name: ok, run: \"test -f made.txt\"}]\n"}
	work := f.repo("work")[0]
	f.start(work, "worker", "--allow-cmd", "touch made.txt")
	code, out := f.run(work, "run", "--engine", "temporal", "--agent-cmd", "touch pwned.txt", "--max-iterations", "1")
	if code != 2 || !strings.Contains(out, `asks this worker to run --agent-cmd "touch pwned.txt"`) || !strings.Contains(out, "--trust-input-commands") {
		t.Errorf("a run with a command the worker does not allow: exit %d, want 2 (a configuration error) naming the command and the flag:\n%s", code, out)
	}
	if n := strings.Count(out, "asks this worker to run"); n != 1 || strings.Contains(out, "activity error") {
		t.Errorf("the refusal is said %d times, want once and not as an activity's error:\n%s", n, out)
	}
	if _, err := os.Stat(filepath.Join(work, "pwned.txt")); err == nil {
		t.Error("the refused command ran")
	}
	code, out = f.run(work, "run", "--engine", "temporal", "--agent-cmd", "touch made.txt", "--gate", "test -f made.txt", "--max-iterations", "1")
	if code != 0 {
		t.Errorf("an allowed agent command and the configuration's own gate: exit %d, want 0:\n%s", code, out)
	}
}

// TestNoAgentOutlivesItsWorker: a worker is killed with SIGKILL while its
// agent, quiet, hangs beside a child of its own that ignores SIGTERM; both
// end by themselves within seconds (checked in /proc; the test kills
// neither): the agent by its parent-death signal, its child by the worker's
// watchdog.
func TestNoAgentOutlivesItsWorker(t *testing.T) {
	f := newFleet(t)
	work := f.repo("work")[0]
	f.plan("append notes.txt partial\\n\nspawn-stubborn\nhang\n")
	w := f.start(work, "worker", "--allow-cmd", "fakeagent")
	f.start(work, "run", "--engine", "temporal", "--agent-cmd", "fakeagent", "--max-iterations", "1")
	pids := filepath.Join(f.dir, "fakeagent", "pids")
	deadline := time.Now().Add(60 * time.Second)
	for len(strings.Fields(string(f.waitFile(pids)))) < 3 { // the child, the agent, the agent hanging
		if time.Now().After(deadline) {
			t.Fatalf("the agent did not start its child and hang: %s", f.read(pids))
		}
		time.Sleep(50 * time.Millisecond) // a file written by another process
	}
	w.kill()
	t.Logf("the dead worker's agent and its child were gone %s after it died", f.agentsGone())
}

// TestTwoRepositoriesOneGraphName: two clones run a task graph of the same
// name (tasks) at once in one namespace, on one worker: each graph is its own
// workflow, and so is each of its tasks' runs (their IDs carry the
// repository's identity); each task works in its own clone's worktree and is
// merged back into its own clone; a second run of the graph in a clone whose
// graph is going on is refused.
func TestTwoRepositoriesOneGraphName(t *testing.T) {
	f := newFleet(t)
	release := filepath.Join(f.dir, "release")
	agent := "pwd > who.txt; while [ ! -f " + release + " ]; do sleep 0.1; done"
	f.files = map[string]string{
		"tasks.yaml":     "tasks:\n  - {id: one, title: Write who.txt, procedure: build}\n",
		"agentloop.yaml": "procedures:\n  build:\n    agent: {cmd: [sh, -c, " + strconv.Quote(agent) + "]}\n    gates: [{name: done, run: \"test -f who.txt\"}]\n",
	}
	clones := f.repo("one", "two")
	f.start(clones[0], "worker")
	var graphs []*proc
	for _, c := range clones {
		graphs = append(graphs, f.start(c, "run", "--tasks", "tasks.yaml", "--engine", "temporal", "--max-iterations", "1"))
		f.waitFile(filepath.Join(c, ".agentloop", "worktrees", "tasks", "one", "who.txt"))
	}
	code, out := f.run(clones[0], "run", "--tasks", "tasks.yaml", "--engine", "temporal", "--max-iterations", "1")
	if code == 0 || !strings.Contains(out, "already running") {
		t.Errorf("a second run of the graph in clone one: exit %d, want it refused as running:\n%s", code, out)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, p := range graphs {
		if code := p.wait(t, 2*time.Minute); code != 0 {
			t.Errorf("graph in clone %d exited %d:\n%s", i+1, code, p.out.String())
		}
	}
	for _, c := range clones {
		want := filepath.Join(c, ".agentloop", "worktrees", "tasks", "one")
		if got := strings.TrimSpace(f.read(filepath.Join(c, "who.txt"))); !strings.HasSuffix(got, want) {
			t.Errorf("%s/who.txt = %q, want its own task's work (written in %s)", c, got, want)
		}
		code, out := f.run(c, "report", "tasks", "--engine", "temporal")
		if code != 0 || !strings.Contains(out, "one") {
			t.Errorf("report of the graph in %s: exit %d:\n%s", c, code, out)
		}
	}
}
