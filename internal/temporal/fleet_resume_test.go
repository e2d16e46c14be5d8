//go:build temporal && unix

package temporal_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/temporal"
)

// TestGraphResumedMergesATaskCommittedElsewhere: a task's run succeeds on the
// worker of another clone, which commits its work and pushes its branch to
// the shared remote; the graph is cancelled before its merge-back (no worker
// holds the graph's clone yet). Run again with a worker on the graph's clone,
// the graph merges the task's work: its branch is fetched from the remote at
// the commit the earlier workflow left it at, though this clone never had it
// (before, the resumed graph knew no such commit, merged the branch as the
// graph's clone had it, and failed the task: "its branch is gone"), and the
// worker of the other clone removes the task's worktree and branch there.
func TestGraphResumedMergesATaskCommittedElsewhere(t *testing.T) {
	f, a, b := oneTask(t, "write one.txt one\n", "gates: [{name: done, run: \"test -f one.txt\"}]")
	f.worker(b)
	args := []string{"run", "--tasks", "tasks.yaml", "--engine", "temporal", "--merge-queue", "machine-a", "--heartbeat-timeout", "3s"}
	first := f.start(a, args...)
	branch := "refs/heads/agentloop/tasks/one"
	var pushed string
	for deadline := time.Now().Add(2 * time.Minute); pushed == ""; {
		if out := strings.Fields(f.git(a, "ls-remote", "origin", branch)); len(out) > 0 {
			pushed = out[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task one's branch was not pushed to the remote:\n%s", first.out.String())
		}
		time.Sleep(200 * time.Millisecond) // another process's push: nothing to wait on
	}
	if f.runOf("tasks-one", b) == "" || f.runOf("tasks-one", a) != "" {
		t.Fatalf("task one's run is not on the worker of clone b alone")
	}
	c := f.srv.Dial(t)
	defer c.Close()
	id := temporal.GraphWorkflowID("tasks", temporal.KnownRepoID(filepath.Join(a, ".agentloop")))
	if err := c.CancelWorkflow(t.Context(), id, ""); err != nil {
		t.Fatal(err)
	}
	if code := first.wait(t, time.Minute); code != 130 {
		t.Fatalf("run --tasks of the cancelled graph exited %d, want 130:\n%s", code, first.out.String())
	}
	if _, err := os.Stat(filepath.Join(a, "one.txt")); err == nil {
		t.Fatal("one.txt merged by the cancelled graph, want nothing merged")
	}

	f.worker(a)
	again := f.start(a, args...)
	if code := again.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("run --tasks again exited %d, want 0 (one merged):\n%s", code, again.out.String())
	}
	if got := strings.TrimSpace(f.read(filepath.Join(a, "one.txt"))); got != "one" {
		t.Errorf("one.txt in the graph's clone = %q, want task one's work merged", got)
	}
	f.git(a, "merge-base", "--is-ancestor", pushed, "HEAD") // fails the test when the pushed commit is not merged
	// The worker holding the task's work tree, told by the earlier workflow,
	// removes it; the branch goes from the remote.
	if _, err := os.Stat(filepath.Join(b, ".agentloop", "worktrees", "tasks", "one")); err == nil {
		t.Error("task one's worktree is left in clone b after its merge")
	}
	if out := f.git(b, "branch", "--list", "agentloop/*"); out != "" {
		t.Errorf("branches left in clone b after the merge: %s", out)
	}
	if out := f.git(a, "ls-remote", "origin", branch); out != "" {
		t.Errorf("task one's branch left on the remote after its merge: %s", out)
	}
}

// TestGraphRerunKeepsATasksPushedBranch: a task's run is aborted by its
// time budget on the worker of clone b, which commits its work and pushes its
// branch; that worker is then gone. The task file run again rebuilds the
// task's worktree on the worker of clone a, where its run takes no step (its
// budget still cannot afford one): the worktree starts from the task's
// pushed branch, and the branch on the remote keeps the task's work (before,
// it was made from the graph's base, and its commit pushed the base over
// the task's branch).
func TestGraphRerunKeepsATasksPushedBranch(t *testing.T) {
	// The first iteration (5 s of agent, and the step's own time: up to 3 s
	// more under the race detector on a loaded machine) fits the 8 s budget,
	// a second one of the same length does not.
	f, a, b := oneTask(t, "write one.txt work\nsleep 5s\n",
		"gates: [{name: done, run: \"test -f ok.txt\"}]\n    limits: {max_iterations: 5, failure_threshold: 5, max_duration: 8s}")
	wb := f.worker(b)
	args := []string{"run", "--tasks", "tasks.yaml", "--engine", "temporal", "--merge-queue", "machine-a", "--heartbeat-timeout", "3s"}
	branch := "agentloop/tasks/one"
	onRemote := func() string {
		f.git(a, "fetch", "-q", "origin", "+refs/heads/"+branch+":refs/remotes/origin/"+branch)
		cmd := exec.Command("git", "show", "origin/"+branch+":one.txt")
		cmd.Dir, cmd.Env = a, f.env
		out, _ := cmd.CombinedOutput()
		return strings.TrimSpace(string(out))
	}
	first := f.start(a, args...)
	if code := first.wait(t, 2*time.Minute); code != 3 || !strings.Contains(first.out.String(), "budget cannot afford another iteration") {
		t.Fatalf("run --tasks exited %d, want 3 (one aborted by its budget):\n%s", code, first.out.String())
	}
	if got := onRemote(); got != "work" || f.runOf("tasks-one", b) == "" {
		t.Fatalf("task one's pushed branch holds one.txt %q, want its work, from clone b's worker", got)
	}
	wb.kill()
	f.worker(a)
	again := f.start(a, args...)
	if code := again.wait(t, 2*time.Minute); code != 3 || !strings.Contains(again.out.String(), "Task one failed after 1 iteration: budget") {
		t.Fatalf("run --tasks again exited %d, want 3 (one aborted again, with no new iteration):\n%s", code, again.out.String())
	}
	if got, err := os.ReadFile(filepath.Join(a, ".agentloop", "worktrees", "tasks", "one", "one.txt")); strings.TrimSpace(string(got)) != "work" {
		t.Errorf("one.txt in task one's worktree made in clone a = %q (%v), want the task's work", got, err)
	}
	if got := onRemote(); got != "work" {
		t.Errorf("task one's branch on the remote after the task file ran again: one.txt %q, want the task's work kept\n%s", got, f.git(a, "log", "--stat", "origin/"+branch))
	}
}

// oneTask is a fleet whose repository has a task file of one task, one,
// whose procedure's agent follows plan and whose other settings are procedure
// (YAML lines of the procedure, indented as the first), and the two clones
// of the repository: a, the graph's, and b, elsewhere.
func oneTask(t *testing.T, plan, procedure string) (f *fleet, a, b string) {
	t.Helper()
	f = newFleet(t)
	f.files = map[string]string{"tasks.yaml": "tasks:\n  - {id: one, title: Write one.txt, procedure: one}\n"}
	file := filepath.Join(f.dir, "one.plan")
	if err := os.WriteFile(file, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	f.files["agentloop.yaml"] = "procedures:\n  one:\n" +
		"    agent: {cmd: [" + filepath.Join(f.dir, "bin", "fakeagent") + "], env: {FAKEAGENT_PLAN: " + file + ", FAKEAGENT_DIR: " + filepath.Join(f.dir, "agent-one") + "}}\n" +
		"    " + procedure + "\n"
	clones := f.repo("a", filepath.Join("elsewhere", "b"))
	return f, clones[0], clones[1]
}

// worker starts a worker on the clone, on its own queue machine-NAME (the
// clone's folder name), pushing its checkpoints to the clone's origin.
func (f *fleet) worker(clone string) *proc {
	return f.start(clone, "worker", "--queue", "machine-"+filepath.Base(clone), "--work-tree", clone, "--checkpoint-remote", "origin")
}
