//go:build temporal

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/testenv"
)

// TestTemporalResumeDoneTask: a graph's task whose run succeeded, its graph
// stopped before merging it (its merge queue has no worker; the graph's
// workflow is cancelled), is resumed on Temporal as locally
// (tasks_resume_after_kill.txtar): its run is done, so the guidance is not
// needed, and its graph goes on, merging it (exit 0), instead of a refusal of
// a run that "already succeeded". Resumed once more, merged, its graph goes
// on too.
func TestTemporalResumeDoneTask(t *testing.T) {
	testenv.NeedTool(t, "git")
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	fakeProcedures(t, repo, aux, map[string]string{"a": "write a.txt a\n"}, nil, nil)
	graphRepo(t, repo, "tasks:\n  - {id: a, title: Write a.txt, procedure: a}\n")
	run := cliOn(t, addr, repo)
	c := dialTest(t, addr)

	first := inBackground(run, "run", "--tasks", "tasks.yaml", "--engine", "temporal", "--merge-queue", "merge-later")
	// a's run succeeds and its work is committed on its branch; its merge
	// waits on a queue no worker polls. (Cancelled before the commit, a
	// graph on a fleet does not commit a run that is over when it runs
	// again: that is not what this test is about.)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		v, _, err := temporal.Find(t.Context(), c, "tasks-a", repoID(repo))
		committed := exec.Command("git", "-C", repo, "cat-file", "-e", "agentloop/tasks/a:a.txt").Run() == nil
		if err == nil && v.State.Status == state.StatusSucceeded && committed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tasks-a did not succeed and commit: %+v, %v, committed %v", v.State, err, committed)
		}
		time.Sleep(100 * time.Millisecond) // a query has no push
	}
	r := cancelGraph(t, c, repo, "tasks", first)
	if ExitCode(r.err) != ExitInterrupted {
		t.Fatalf("run --tasks of the cancelled graph: exit %d (%v), want %d\n%s\n%s", ExitCode(r.err), r.err, ExitInterrupted, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(repo, "a.txt")); err == nil {
		t.Fatal("a.txt is in the repository: a was merged before its graph was cancelled")
	}

	// A worker for the merge queue: the graph can go on now.
	cliOn(t, addr, repo, "--queue", "merge-later")
	stdout, stderr, err := run("resume", "tasks-a", "--guidance", "not needed", "--engine", "temporal")
	if ExitCode(err) != ExitOK || !strings.Contains(stderr, "Run tasks-a already succeeded") || !strings.Contains(stderr, "the guidance is not needed") || !strings.Contains(stderr, "Merged task a") {
		t.Fatalf("resume of the done task: exit %d (%v), want its graph gone on and a merged\n%s\n%s", ExitCode(err), err, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(repo, "a.txt")); err != nil {
		t.Errorf("a.txt not merged back: %v", err)
	}
	if got := strings.TrimSpace(readFile(t, filepath.Join(aux, "a", "calls"))); got != "1" {
		t.Errorf("a's agent was called %s times, want once", got)
	}

	stdout, stderr, err = run("resume", "tasks-a", "--guidance", "again", "--engine", "temporal")
	if ExitCode(err) != ExitOK || !strings.Contains(stderr, "Task a is already merged: the guidance is not needed") {
		t.Errorf("resume of the merged task: exit %d (%v), want its graph gone on\n%s\n%s", ExitCode(err), err, stdout, stderr)
	}
}
