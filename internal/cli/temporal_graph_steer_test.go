//go:build temporal

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestTemporalGraphSteerRealServer: on a real dev server, a graph's tasks are
// steered by their run names (GRAPH-TASK) as a run of its own is: `guide`
// sent while g's first iteration runs reaches g's second prompt and is
// acknowledged in its status; `stop` ends s when its current iteration ends,
// and the graph goes on to its end, g merged and s interrupted.
func TestTemporalGraphSteerRealServer(t *testing.T) {
	testenv.NeedTool(t, "git")
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	in, goAhead, wait := held(aux)
	fakeProcedures(t, repo, aux, map[string]string{
		"g": wait("g") + "[*]\nexpect-prompt use the v2 API\nwrite g.fixed done\n",
		"s": wait("s") + "[*]\nprint going on\n",
	}, nil, map[string]string{
		"g": "    gates: [{name: fixed, run: \"test -f g.fixed\"}]\n    limits: {max_iterations: 5, failure_threshold: 5}\n",
		"s": "    gates: [{name: fixed, run: \"test -f s.fixed\"}]\n    limits: {max_iterations: 5, failure_threshold: 5}\n",
	})
	graphRepo(t, repo, `parallel: 2
tasks:
  - {id: g, title: Write g.fixed, procedure: g}
  - {id: s, title: Write s.fixed, procedure: s}
`)
	run := cliOn(t, addr, repo)
	server := []string{"--engine", "temporal"}
	done := inBackground(run, append([]string{"run", "--tasks", "tasks.yaml"}, server...)...)
	for _, name := range []string{"g", "s"} {
		awaitFile(t, in(name), 90*time.Second)
	}

	stdout, _, err := run(append([]string{"guide", "tasks-g", "use the v2 API"}, server...)...)
	if err != nil || !strings.Contains(stdout, "Guidance queued for tasks-g on Temporal (in iteration 1)") {
		t.Fatalf("guide tasks-g: %v\n%s", err, stdout)
	}
	stdout, _, err = run(append([]string{"stop", "tasks-s"}, server...)...)
	if err != nil || !strings.Contains(stdout, "tasks-s stops when iteration 1 ends") {
		t.Fatalf("stop tasks-s: %v\n%s", err, stdout)
	}
	writeFile(t, goAhead("g"), "")
	writeFile(t, goAhead("s"), "")
	r := ended(t, done, 3*time.Minute, "run --tasks")
	// s is not done: the graph ends aborted (3), as a local graph does.
	if ExitCode(r.err) != ExitAborted {
		t.Errorf("run --tasks: exit %d (%v), want %d\n%s\n%s", ExitCode(r.err), r.err, ExitAborted, r.stdout, r.stderr)
	}
	for _, want := range []string{"Task g succeeded after 2 iterations", "Task s interrupted after 1 iteration: stopped after iteration 1 (agentloop stop)", "Merged task g"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("run --tasks said:\n%s\nwant %q", r.stderr, want)
		}
	}

	stdout, _, err = run(append([]string{"status", "tasks-g"}, server...)...)
	if err != nil || !strings.Contains(stdout, "Guidance applied in iteration 2") || !strings.Contains(stdout, "succeeded") {
		t.Errorf("status tasks-g: %v\n%s", err, stdout)
	}
	stdout, _, err = run(append([]string{"status", "tasks-s"}, server...)...)
	if err != nil || !strings.Contains(stdout, "interrupted") {
		t.Errorf("status tasks-s: %v\n%s", err, stdout)
	}
	if _, _, err := run(append([]string{"stop", "tasks-s"}, server...)...); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("stop of an ended task: %v, want refused as not running", err)
	}
}

// held is the fake agents' hold, by procedure name, in the folder aux: the
// file an agent writes once started (in), the file it waits for (goAhead),
// and the plan of a first iteration that does both (wait).
func held(aux string) (in, goAhead, wait func(name string) string) {
	in = func(name string) string { return filepath.Join(aux, name+".in") }
	goAhead = func(name string) string { return filepath.Join(aux, name+".go") }
	wait = func(name string) string {
		return "[1]\nwrite " + in(name) + " started\nwaitfor " + goAhead(name) + "\n"
	}
	return in, goAhead, wait
}

// awaitFile returns once path is there, failing the test after limit.
func awaitFile(t *testing.T, path string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not come: its agent did not start", path)
		}
		time.Sleep(100 * time.Millisecond) // a file written by another process: no event to wait on
	}
}
