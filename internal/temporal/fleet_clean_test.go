//go:build temporal && unix

package temporal_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCleanFleet: runs whose steps ran on two workers, each holding its own
// clone of one bare remote and pushing its checkpoints there. `clean --engine
// temporal --checkpoint-remote origin -f` in each clone removes what the
// ended runs left there (run folders, checkpoint refs) and their checkpoint
// refs on the remote, and keeps everything of a run waiting for a person.
func TestCleanFleet(t *testing.T) {
	f := newFleet(t)
	f.files = map[string]string{"agentloop.yaml": `procedures:
  build:
    agent: {cmd: [fakeagent]}
  other:
    agent: {cmd: [fakeagent]}
  stuck:
    agent: {cmd: [fakeagent]}
    gates: [{name: fixed, run: "test -f fixed.txt"}]
    limits: {max_iterations: 1, failure_threshold: 5}
`}
	clones := f.repo("a", "b")
	a, b := clones[0], clones[1]
	f.plan("[*]\nappend notes.txt iteration\\n\n")
	for _, c := range clones {
		f.start(c, "worker", "--queue", "machine-"+filepath.Base(c), "--work-tree", c, "--checkpoint-remote", "origin")
	}
	for _, r := range []struct{ proc, queue string }{{"build", "machine-a"}, {"other", "machine-b"}} {
		if code, out := f.run(a, "run", r.proc, "--engine", "temporal", "--max-iterations", "1", "--worker-queue", r.queue); code != 0 {
			t.Fatalf("run %s exited %d, want 0:\n%s", r.proc, code, out)
		}
	}
	if code, out := f.run(a, "run", "stuck", "--engine", "temporal", "--worker-queue", "machine-a"); code != 4 {
		t.Fatalf("run stuck exited %d, want 4 (waiting for a person):\n%s", code, out)
	}
	remote := filepath.Join(f.dir, "remote.git")
	refNames := func(dir string) string {
		return f.git(dir, "for-each-ref", "--format=%(refname)", "refs/agentloop/")
	}
	// One ref per run on the remote, its journal; an earlier worker left
	// one ref per checkpoint, as a run of build has here.
	journals := strings.Fields(refNames(remote))
	for _, name := range []string{"build", "other", "stuck"} {
		if n := len(slices.DeleteFunc(slices.Clone(journals), func(r string) bool {
			return !strings.HasPrefix(r, "refs/agentloop/"+name+"/") || !strings.HasSuffix(r, "/journal")
		})); n != 1 {
			t.Fatalf("the remote has %d journals of %s, want 1:\n%s", n, name, strings.Join(journals, "\n"))
		}
	}
	if len(journals) != 3 {
		t.Fatalf("the remote holds more than a journal per run:\n%s", strings.Join(journals, "\n"))
	}
	for _, r := range journals {
		if strings.HasPrefix(r, "refs/agentloop/build/") {
			f.git(remote, "update-ref", strings.TrimSuffix(r, "journal")+"iter-1", r+"^")
		}
	}
	before := refNames(remote)
	// Listed first, nothing removed.
	code, out := f.run(a, "clean", "--engine", "temporal", "--checkpoint-remote", "origin")
	if code != 0 || !strings.Contains(out, "Would remove") || refNames(remote) != before {
		t.Fatalf("clean without -f exited %d and changed the remote's refs, or listed nothing:\n%s", code, out)
	}
	for _, c := range clones {
		code, out := f.run(c, "clean", "-f", "--engine", "temporal", "--checkpoint-remote", "origin")
		if code != 0 {
			t.Fatalf("clean -f in %s exited %d:\n%s", filepath.Base(c), code, out)
		}
		t.Logf("clean -f in %s:\n%s", filepath.Base(c), out)
	}
	for dir, want := range map[string][]string{remote: {"stuck"}, a: {"stuck"}, b: nil} {
		got := refNames(dir)
		for _, name := range []string{"build", "other", "stuck"} {
			has := strings.Contains(got, "refs/agentloop/"+name+"/")
			if wanted := strings.Contains(strings.Join(want, " "), name); has != wanted {
				t.Errorf("%s: checkpoints of %s there: %v, want %v:\n%s", dir, name, has, wanted, got)
			}
		}
	}
	for path, want := range map[string]bool{
		filepath.Join(a, ".agentloop", "runs", "build"): false, filepath.Join(b, ".agentloop", "runs", "other"): false,
		filepath.Join(a, ".agentloop", "runs", "stuck"): true,
	} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", path, err == nil, want)
		}
	}
	// The waiting run goes on: its guidance reaches it.
	if code, out := f.run(a, "resume", "stuck", "--engine", "temporal", "--guidance", "look again"); code == 1 || code == 2 {
		t.Errorf("resume of the kept run exited %d:\n%s", code, out)
	}
}

// TestLocalCleanLeavesTemporalRuns: a plain `clean -f` (no --engine
// temporal) in a worker's clone, which cannot ask the server how its runs
// stand, leaves everything the Temporal runs keep there, with --all too: the
// run folder and checkpoints of a run waiting for a person, and the run
// folder, checkpoints, worktree and branch of a graph's task waiting too. It
// says which runs it left and that `clean --engine temporal` asks the server;
// the runs go on.
func TestLocalCleanLeavesTemporalRuns(t *testing.T) {
	f := newFleet(t)
	f.files = map[string]string{
		"agentloop.yaml": `procedures:
  stuck:
    agent: {cmd: [fakeagent]}
    gates: [{name: fixed, run: "test -f fixed.txt"}]
    limits: {max_iterations: 1, failure_threshold: 5}
`,
		"tasks.yaml": "tasks:\n  - {id: one, title: Write fixed.txt, procedure: stuck}\n",
	}
	a := f.repo("a")[0]
	f.plan("[*]\nappend notes.txt iteration\\n\n")
	f.start(a, "worker", "--work-tree", a)
	if code, out := f.run(a, "run", "stuck", "--engine", "temporal"); code != 4 {
		t.Fatalf("run stuck exited %d, want 4 (waiting for a person):\n%s", code, out)
	}
	if code, out := f.run(a, "run", "--tasks", "tasks.yaml", "--engine", "temporal"); code != 4 {
		t.Fatalf("run --tasks exited %d, want 4 (its task waits for a person):\n%s", code, out)
	}
	kept := []string{
		filepath.Join(a, ".agentloop", "runs", "stuck"),
		filepath.Join(a, ".agentloop", "runs", "tasks-one"),
		filepath.Join(a, ".agentloop", "worktrees", "tasks", "one"),
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("the runs left no %s: %v", p, err)
		}
	}
	refs := func() string {
		return f.git(a, "for-each-ref", "--format=%(refname)", "refs/agentloop/", "refs/heads/agentloop/")
	}
	before := refs()
	for _, want := range []string{"refs/agentloop/stuck/", "refs/agentloop/tasks-one/", "refs/heads/agentloop/tasks/one"} {
		if !strings.Contains(before, want) {
			t.Fatalf("the clone has no %s:\n%s", want, before)
		}
	}
	for _, clean := range [][]string{{"clean", "-f"}, {"clean", "-f", "--all"}} {
		cmd := strings.Join(clean, " ")
		code, out := f.run(a, clean...)
		t.Logf("%s:\n%s", cmd, out)
		if code != 0 {
			t.Fatalf("%s exited %d:\n%s", cmd, code, out)
		}
		for _, p := range kept {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s removed %s of a run waiting on Temporal", cmd, p)
			}
		}
		if got := refs(); got != before {
			t.Errorf("%s changed the refs of runs waiting on Temporal:\n%s\nwant\n%s", cmd, got, before)
		}
		for _, want := range []string{"stuck", "tasks-one", "clean --engine temporal"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s said:\n%s\nwant it to name %q", cmd, out, want)
			}
		}
	}
	if code, out := f.run(a, "resume", "stuck", "--engine", "temporal", "--guidance", "look again"); code == 1 || code == 2 {
		t.Errorf("resume of the kept run exited %d:\n%s", code, out)
	}
}
