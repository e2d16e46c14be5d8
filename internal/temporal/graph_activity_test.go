package temporal

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/testenv"
)

// sharedClones are two clones of a bare remote (origin), at different paths,
// of one commit ignoring the state folder.
func sharedClones(t *testing.T) (a, b string) {
	t.Helper()
	testenv.NeedTool(t, "git")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "t")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "t@t")
	}
	dir := t.TempDir()
	remote, seed := filepath.Join(dir, "remote.git"), filepath.Join(dir, "seed")
	gitIn(t, dir, "init", "-q", "--bare", "-b", "main", remote)
	gitIn(t, dir, "clone", "-q", remote, seed)
	writeIn(t, seed, ".gitignore", ".agentloop/\n")
	gitIn(t, seed, "add", "-A")
	gitIn(t, seed, "commit", "-q", "-m", "start")
	gitIn(t, seed, "push", "-q", "origin", "HEAD:main")
	a, b = filepath.Join(dir, "graph"), filepath.Join(dir, "elsewhere", "other")
	for _, c := range []string{a, b} {
		gitIn(t, dir, "clone", "-q", remote, c)
	}
	return a, b
}

// TestGraphStepsOnTwoClones: a task's worktree is made in the clone of the
// worker that takes it, though the graph was started in another clone at
// another path; its work is committed and pushed to the shared remote there;
// the merge-back in the graph's repository fetches it from the remote. Without
// the remote it is left unmerged with a warning saying what to configure, and
// a worker holding another clone merges nothing.
func TestGraphStepsOnTwoClones(t *testing.T) {
	graphRepo, other := sharedClones(t)
	ctx := t.Context()
	state := filepath.Join(graphRepo, ".agentloop")
	file := tasks.File{Tasks: []tasks.Task{{ID: "one", Title: "Write one.txt"}, {ID: "two", Title: "Write two.txt"}}}

	// Each task on the other worker, which pushes its branch only with a remote.
	heads := map[string]string{}
	for i, c := range []struct{ id, remote string }{{"one", "origin"}, {"two", ""}} {
		onOther := &GraphSteps{Steps: &Steps{Queue: "other", WorkTree: other, Remote: c.remote}}
		wo, err := onOther.WorkTree(ctx, WorkTreeInput{Repo: graphRepo, StateDir: state, Graph: "g", ID: c.id})
		if err != nil || wo.Queue != "other" {
			t.Fatalf("worktree of %s: %+v, %v", c.id, wo, err)
		}
		wt := filepath.Join(other, ".agentloop", "worktrees", "g", c.id)
		writeIn(t, wt, c.id+".txt", c.id+"\n")
		co, err := onOther.Commit(ctx, CommitInput{WorkTree: filepath.Join(state, "worktrees", "g", c.id), Task: file.Tasks[i], Repo: graphRepo, Branch: "agentloop/g/" + c.id})
		if err != nil || co.Head == "" || co.Pushed != (c.remote != "") {
			t.Fatalf("commit of %s: %+v, %v", c.id, co, err)
		}
		heads[c.id] = co.Head
	}
	if _, err := os.Stat(filepath.Join(state, "worktrees")); !os.IsNotExist(err) {
		t.Errorf("the tasks' worktrees were made in the graph's clone: %v", err)
	}

	merge := MergeInput{Repo: graphRepo, StateDir: state, Graph: "g", File: file, Order: []string{"one", "two"}, Heads: heads}
	elsewhere := &GraphSteps{Steps: &Steps{Queue: "other", WorkTree: other, Remote: "origin"}}
	if out, err := elsewhere.Merge(ctx, merge); err != nil || len(out.Results) != 0 || !strings.Contains(out.Err, "--merge-queue") {
		t.Errorf("merge on a worker holding another clone: %+v, %v; want nothing merged and how to pick the graph's worker", out, err)
	}
	here := &GraphSteps{Steps: &Steps{Queue: "graph", Remote: "origin"}}
	out, err := here.Merge(ctx, merge)
	if err != nil || out.Err != "" || out.Queue != "graph" {
		t.Fatalf("merge: %+v, %v", out, err)
	}
	if len(out.Results) != 1 || out.Results[0].ID != "one" || !out.Results[0].Merged {
		t.Errorf("merged %+v, want one (fetched from the remote) only", out.Results)
	}
	if b, err := os.ReadFile(filepath.Join(graphRepo, "one.txt")); err != nil || string(b) != "one\n" {
		t.Errorf("one.txt in the graph's repository: %q, %v", b, err)
	}
	if refs := gitIn(t, graphRepo, "ls-remote", "origin", "refs/heads/agentloop/g/*"); refs != "" {
		t.Errorf("task branches left on the remote after the merge:\n%s", refs)
	}
	// The worker holding one's worktree removes it, and its branch at the merged commit.
	onOther := &GraphSteps{Steps: &Steps{Queue: "other", WorkTree: other}}
	if w, err := onOther.Prune(ctx, PruneInput{Repo: graphRepo, StateDir: state, Graph: "g", Heads: map[string]string{"one": heads["one"]}}); err != nil || len(w) != 0 {
		t.Errorf("prune: %q, %v", w, err)
	}
	if _, err := os.Stat(filepath.Join(other, ".agentloop", "worktrees", "g", "one")); !os.IsNotExist(err) {
		t.Errorf("one's worktree on the other worker: %v, want removed", err)
	}
	if branches := gitIn(t, other, "branch", "--list", "agentloop/g/*"); strings.Contains(branches, "agentloop/g/one") || !strings.Contains(branches, "agentloop/g/two") {
		t.Errorf("branches left on the other worker:\n%s\nwant two's only", branches)
	}
	if !slices.ContainsFunc(out.Warnings, func(w string) bool {
		return strings.Contains(w, "task two is left unmerged") && strings.Contains(w, "could not be fetched")
	}) {
		t.Errorf("warnings %q: want task two left unmerged, not found on the remote", out.Warnings)
	}
	merge.Order = []string{"two"}
	out, err = (&GraphSteps{Steps: &Steps{Queue: "graph"}}).Merge(ctx, merge)
	if err != nil || len(out.Results) != 0 || len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "--checkpoint-remote") {
		t.Errorf("merge without a remote: %+v, %v; want task two unmerged and the remote to configure", out, err)
	}
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func writeIn(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGraphCommitRebuildsTheWorkTree: the worker holding a task's work tree is
// gone after its run ended; another worker, in its own clone, makes the
// task's worktree, restores the run's last checkpoint fetched from the shared
// remote, and commits it on the task's branch.
func TestGraphCommitRebuildsTheWorkTree(t *testing.T) {
	graphRepo, other := sharedClones(t)
	ctx := t.Context()
	state := filepath.Join(graphRepo, ".agentloop")
	task := tasks.Task{ID: "three", Title: "Write three.txt"}
	gone := &GraphSteps{Steps: &Steps{Queue: "gone", WorkTree: other, Remote: "origin"}}
	if _, err := gone.WorkTree(ctx, WorkTreeInput{Repo: graphRepo, StateDir: state, Graph: "g", ID: "three"}); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(other, ".agentloop", "worktrees", "g", "three")
	writeIn(t, wt, "three.txt", "three\n")
	refs := engine.CheckpointRefs("g-three", "r3")
	cp, err := gitx.Snapshot(ctx, wt, refs+"iter-1", "iteration 1")
	if err != nil {
		t.Fatal(err)
	}
	if err := gitx.ShareCheckpoints(ctx, wt, "origin", refs); err != nil {
		t.Fatal(err)
	}
	in := CommitInput{
		WorkTree: filepath.Join(state, "worktrees", "g", "three"), Task: task, Repo: graphRepo, Branch: "agentloop/g/three",
		Moved: true, Checkpoint: cp.Commit,
		Run: &RunRef{Name: "g-three", RunID: "r3", Task: &GraphTask{Graph: "g", Repo: graphRepo, StateDir: state, Task: task}},
	}
	if _, err := (&GraphSteps{Steps: &Steps{Queue: "here"}}).Commit(ctx, in); err == nil || !strings.Contains(err.Error(), "--checkpoint-remote") {
		t.Errorf("a rebuild without a shared remote: %v, want the remote to configure", err)
	}
	co, err := (&GraphSteps{Steps: &Steps{Queue: "here", Remote: "origin"}}).Commit(ctx, in)
	if err != nil || co.Queue != "here" || !co.Pushed {
		t.Fatalf("commit: %+v, %v", co, err)
	}
	if got := gitIn(t, graphRepo, "show", co.Head+":three.txt"); got != "three\n" {
		t.Errorf("three.txt on the committed branch: %q, want the checkpoint's", got)
	}
}

// TestGraphBaseOnAnotherClone: a task's branch starts from the graph's base
// commit also in a clone that is not at it: fetched from the shared remote
// when the clone does not have it; without the remote, the worktree is not
// made and the error says what to do.
func TestGraphBaseOnAnotherClone(t *testing.T) {
	graphRepo, other := sharedClones(t)
	ctx := t.Context()
	writeIn(t, graphRepo, "base.txt", "the graph's base\n")
	gitIn(t, graphRepo, "add", "-A")
	gitIn(t, graphRepo, "commit", "-q", "-m", "base")
	base := strings.TrimSpace(gitIn(t, graphRepo, "rev-parse", "HEAD"))
	in := WorkTreeInput{Repo: graphRepo, StateDir: filepath.Join(graphRepo, ".agentloop"), Graph: "g", ID: "one", Base: base}
	if _, err := (&GraphSteps{Steps: &Steps{WorkTree: other}}).WorkTree(ctx, in); err == nil || !strings.Contains(err.Error(), "--checkpoint-remote") {
		t.Errorf("the base not in the clone, no remote: %v; want what to do", err)
	}
	gitIn(t, graphRepo, "push", "-q", "origin", "HEAD:refs/heads/main")
	if _, err := (&GraphSteps{Steps: &Steps{WorkTree: other, Remote: "origin"}}).WorkTree(ctx, in); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(other, ".agentloop", "worktrees", "g", "one")
	if got := strings.TrimSpace(gitIn(t, wt, "rev-parse", "HEAD")); got != base {
		t.Errorf("the task's branch starts at %s, want the graph's base %s", got, base)
	}
}

// TestGraphMergeRunsTheTasksGates: the merge activity merges a task only if
// the required gates of its run's plan (rebuilt on the worker) pass on the
// merged result: b's tree passes its gate, the result merged with a's work
// does not; b is not merged, and the gate's log is kept in b's run folder.
// A graph started before names no run: its task merges as it did.
func TestGraphMergeRunsTheTasksGates(t *testing.T) {
	repo, _ := sharedClones(t)
	ctx := t.Context()
	state := filepath.Join(repo, ".agentloop")
	file := tasks.File{Tasks: []tasks.Task{{ID: "a", Title: "a"}, {ID: "b", Title: "b"}, {ID: "c", Title: "c"}}}
	var planned []string
	steps := &GraphSteps{Steps: &Steps{Queue: "graph", Plan: func(_ context.Context, r RunRef) (*plan.Plan, error) {
		planned = append(planned, r.Name)
		return &plan.Plan{StateDir: state, Gates: []plan.GateSpec{
			{Name: "alone", Argv: []string{"sh", "-c", "test ! -f a.txt"}, Command: "test ! -f a.txt", Required: true},
			{Name: "lint", Argv: []string{"false"}, Command: "false"}, // not required: not run
		}}, nil
	}}}
	for _, id := range []string{"a", "b", "c"} {
		if _, err := steps.WorkTree(ctx, WorkTreeInput{Repo: repo, StateDir: state, Graph: "g", ID: id}); err != nil {
			t.Fatal(err)
		}
		writeIn(t, filepath.Join(state, "worktrees", "g", id), id+".txt", id+"\n")
		if _, err := steps.Commit(ctx, CommitInput{WorkTree: filepath.Join(state, "worktrees", "g", id), Task: file.Tasks[0]}); err != nil {
			t.Fatal(err)
		}
	}
	merge := func(id string, runs bool) MergeOutput {
		// Each loop passed its gates on its branch's tree, as committed.
		in := MergeInput{Repo: repo, StateDir: state, Graph: "g", File: file, Order: []string{id},
			Checkpoints: map[string]string{id: gitx.BranchCommit(ctx, repo, tasks.TaskBranch("g", id))}}
		if runs {
			in.Runs = map[string]RunRef{id: {Name: "g-" + id, RunID: "r1"}}
		}
		out, err := steps.Merge(ctx, in)
		if err != nil || out.Err != "" || len(out.Merges) != 1 {
			t.Fatalf("merge %s: %+v, %v", id, out, err)
		}
		return out
	}
	if out := merge("a", true); !out.Merges[0].Merged || !out.Results[0].Merged {
		t.Fatalf("merge a: %+v", out)
	}
	out := merge("b", true)
	if m := out.Merges[0]; m.Merged || m.Issue != tasks.MergeGates || !strings.Contains(m.Gates, "alone (test ! -f a.txt) fails") {
		t.Errorf("merge b: %+v, want not merged, its gate failing on the merged result", m)
	}
	if r := out.Results[0]; r.Merged || r.Conflict {
		t.Errorf("b's result as a graph started before reads it: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(repo, "b.txt")); err == nil {
		t.Error("b was merged")
	}
	if _, err := os.Stat(filepath.Join(state, "runs", "g-b", "r1", "merge-1", "alone.log")); err != nil {
		t.Errorf("the gate's log: %v", err)
	}
	if !slices.Equal(planned, []string{"g-a", "g-b"}) {
		t.Errorf("plans rebuilt for %v", planned)
	}
	if out := merge("c", false); !out.Merges[0].Merged {
		t.Errorf("merge of a graph started before: %+v", out.Merges[0])
	}
}

// TestGraphMergedWorkOnAnotherClone: the merge-back pushes the work merged so
// far to the shared remote, so that a task after the merged one, made on
// another worker's clone, starts from it.
func TestGraphMergedWorkOnAnotherClone(t *testing.T) {
	graphRepo, other := sharedClones(t)
	ctx := t.Context()
	state := filepath.Join(graphRepo, ".agentloop")
	file := tasks.File{Tasks: []tasks.Task{{ID: "a", Title: "a"}, {ID: "b", Title: "b", DependsOn: []string{"a"}}}}
	here := &GraphSteps{Steps: &Steps{Queue: "graph", Remote: "origin"}}
	if _, err := here.WorkTree(ctx, WorkTreeInput{Repo: graphRepo, StateDir: state, Graph: "g", ID: "a"}); err != nil {
		t.Fatal(err)
	}
	writeIn(t, filepath.Join(state, "worktrees", "g", "a"), "a.txt", "a\n")
	if _, err := here.Commit(ctx, CommitInput{WorkTree: filepath.Join(state, "worktrees", "g", "a"), Task: file.Tasks[0]}); err != nil {
		t.Fatal(err)
	}
	out, err := here.Merge(ctx, MergeInput{Repo: graphRepo, StateDir: state, Graph: "g", File: file, Order: []string{"a"}})
	if err != nil || len(out.Merges) != 1 || !out.Merges[0].Merged || len(out.Warnings) != 0 {
		t.Fatalf("merge a: %+v, %v", out, err)
	}
	head := out.Merges[0].Head
	if got := strings.TrimSpace(gitIn(t, graphRepo, "ls-remote", "origin", MergedBranch("g"))); !strings.HasPrefix(got, head) {
		t.Errorf("the remote's %s is %q, want the merged %s", MergedBranch("g"), got, head)
	}
	elsewhere := &GraphSteps{Steps: &Steps{Queue: "other", WorkTree: other, Remote: "origin"}}
	if _, err := elsewhere.WorkTree(ctx, WorkTreeInput{Repo: graphRepo, StateDir: state, Graph: "g", ID: "b", Base: head}); err != nil {
		t.Fatal(err)
	}
	if got := readFileIn(t, filepath.Join(other, ".agentloop", "worktrees", "g", "b", "a.txt")); got != "a\n" {
		t.Errorf("b's worktree on the other clone has a.txt %q, want a's work", got)
	}
}

func readFileIn(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGraphMergeFoundInAncestry: the merge-back is idempotent from git's
// ancestry, whatever the workflow recorded. a's branch merged by a person is
// found merged: no second merge commit, the repository's HEAD unchanged, no
// warning. b merged by the activity, its worktree and branch removed, then the
// same merge asked again (the activity retried: its worker died before the
// workflow heard of the merge) is found merged from the commit b's branch was
// left at.
func TestGraphMergeFoundInAncestry(t *testing.T) {
	repo, _ := sharedClones(t)
	ctx := t.Context()
	state := filepath.Join(repo, ".agentloop")
	file := tasks.File{Tasks: []tasks.Task{{ID: "a", Title: "a"}, {ID: "b", Title: "b"}}}
	steps := &GraphSteps{Steps: &Steps{Queue: "graph"}}
	heads := map[string]string{}
	for _, id := range []string{"a", "b"} {
		wt := filepath.Join(state, "worktrees", "g", id)
		if _, err := steps.WorkTree(ctx, WorkTreeInput{Repo: repo, StateDir: state, Graph: "g", ID: id}); err != nil {
			t.Fatal(err)
		}
		writeIn(t, wt, id+".txt", id+"\n")
		c, err := steps.Commit(ctx, CommitInput{WorkTree: wt, Task: file.Tasks[0], Branch: tasks.TaskBranch("g", id)})
		if err != nil {
			t.Fatal(err)
		}
		heads[id] = c.Head
	}
	merge := func(id string) graph.Merge {
		t.Helper()
		out, err := steps.Merge(ctx, MergeInput{Repo: repo, StateDir: state, Graph: "g", File: file, Order: []string{id},
			Heads: map[string]string{id: heads[id]}})
		if err != nil || out.Err != "" || len(out.Merges) != 1 || len(out.Warnings) != 0 {
			t.Fatalf("merge %s: %+v, %v", id, out, err)
		}
		return out.Merges[0]
	}
	// a merged by hand, as a killed attempt or a person leaves it.
	gitIn(t, repo, "merge", "-q", "--no-ff", "-m", "merged by hand", tasks.TaskBranch("g", "a"))
	head := strings.TrimSpace(gitIn(t, repo, "rev-parse", "HEAD"))
	if m := merge("a"); !m.Merged || !m.Already || m.Head != head {
		t.Errorf("merge of a merged by hand: %+v, want found merged at %s", m, head)
	}
	if got := strings.TrimSpace(gitIn(t, repo, "rev-parse", "HEAD")); got != head {
		t.Errorf("HEAD moved from %s to %s: a's work merged twice", head, got)
	}
	// b merged by the activity, then the same merge asked again.
	first := merge("b")
	if !first.Merged || first.Already {
		t.Fatalf("merge b: %+v", first)
	}
	if b := gitx.BranchCommit(ctx, repo, tasks.TaskBranch("g", "b")); b != "" {
		t.Fatalf("b's branch is still there at %s after its merge", b)
	}
	again := merge("b")
	if !again.Merged || !again.Already || again.Head != first.Head {
		t.Errorf("merge b again: %+v, want found merged at %s", again, first.Head)
	}
	if n := strings.Count(gitIn(t, repo, "log", "--merges", "--oneline"), "\n"); n != 2 {
		t.Errorf("%d merge commits, want 2 (a by hand, b once)", n)
	}
}

// TestGraphWorkTreeAtTheTasksHead: a task's worktree made by a worker whose
// clone does not have the task's branch where its last commit (on another
// worker, pushed) left it starts from that commit, fetched from the shared
// remote; a worktree of the task made in this clone before (older, what a
// worker that left the task there held) is brought to it, its leftovers
// discarded; one ahead of it is kept.
func TestGraphWorkTreeAtTheTasksHead(t *testing.T) {
	for _, made := range []bool{false, true} {
		t.Run(map[bool]string{false: "no worktree here", true: "an older worktree here"}[made], func(t *testing.T) {
			graphRepo, other := sharedClones(t)
			ctx := t.Context()
			state := filepath.Join(graphRepo, ".agentloop")
			in := WorkTreeInput{Repo: graphRepo, StateDir: state, Graph: "g", ID: "one"}
			here := &GraphSteps{Steps: &Steps{Queue: "here", Remote: "origin"}}
			wt := filepath.Join(state, "worktrees", "g", "one")
			if made {
				if _, err := here.WorkTree(ctx, in); err != nil {
					t.Fatal(err)
				}
				writeIn(t, wt, "leftover.txt", "a dead attempt's\n")
			}
			onOther := &GraphSteps{Steps: &Steps{Queue: "other", WorkTree: other, Remote: "origin"}}
			if _, err := onOther.WorkTree(ctx, in); err != nil {
				t.Fatal(err)
			}
			writeIn(t, filepath.Join(other, ".agentloop", "worktrees", "g", "one"), "one.txt", "one\n")
			co, err := onOther.Commit(ctx, CommitInput{WorkTree: wt, Task: tasks.Task{ID: "one", Title: "Write one.txt"}, Repo: graphRepo, Branch: "agentloop/g/one"})
			if err != nil || !co.Pushed {
				t.Fatalf("commit on the other clone: %+v, %v", co, err)
			}
			in.Head = co.Head
			if _, err := here.WorkTree(ctx, in); err != nil {
				t.Fatalf("worktree at the task's head: %v", err)
			}
			if got := gitIn(t, wt, "rev-parse", "HEAD"); strings.TrimSpace(got) != co.Head {
				t.Errorf("the task's worktree here is at %s, want %s, where its last commit left its branch", got, co.Head)
			}
			if got := readFileIn(t, filepath.Join(wt, "one.txt")); got != "one\n" {
				t.Errorf("one.txt in the task's worktree here = %q, want the task's work", got)
			}
			if _, err := os.Stat(filepath.Join(wt, "leftover.txt")); err == nil {
				t.Error("the older worktree's leftover is still there")
			}
			// A branch here ahead of the task's head (the merge-back moved it
			// to a merged result) is kept.
			writeIn(t, wt, "merged.txt", "merged\n")
			gitIn(t, wt, "add", "-A")
			gitIn(t, wt, "commit", "-q", "-m", "merged result")
			ahead := strings.TrimSpace(gitIn(t, wt, "rev-parse", "HEAD"))
			if _, err := here.WorkTree(ctx, in); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(gitIn(t, wt, "rev-parse", "HEAD")); got != ahead {
				t.Errorf("the task's worktree here is at %s, want %s: a branch ahead of the task's head is kept", got, ahead)
			}
		})
	}
}

// TestTaskTakenOverStartsAtItsHead: a task's run, or its commit, taken over
// by a worker whose clone has no worktree of the task makes it at the commit
// the task's branch was left at on another worker, fetched from the shared
// remote, not at the graph's base: its commit then goes on from there, and
// its push does not replace the task's branch with one that lost that commit.
func TestTaskTakenOverStartsAtItsHead(t *testing.T) {
	for _, path := range []string{"run", "commit"} {
		t.Run(path, func(t *testing.T) {
			graphRepo, other := sharedClones(t)
			ctx := t.Context()
			state := filepath.Join(graphRepo, ".agentloop")
			wt := filepath.Join(state, "worktrees", "g", "one")
			onOther := &GraphSteps{Steps: &Steps{Queue: "other", WorkTree: other, Remote: "origin"}}
			if _, err := onOther.WorkTree(ctx, WorkTreeInput{Repo: graphRepo, StateDir: state, Graph: "g", ID: "one"}); err != nil {
				t.Fatal(err)
			}
			writeIn(t, filepath.Join(other, ".agentloop", "worktrees", "g", "one"), "one.txt", "one\n")
			task := tasks.Task{ID: "one", Title: "Write one.txt"}
			co, err := onOther.Commit(ctx, CommitInput{WorkTree: wt, Task: task, Repo: graphRepo, Branch: "agentloop/g/one"})
			if err != nil || !co.Pushed {
				t.Fatalf("commit on the other clone: %+v, %v", co, err)
			}
			run := RunRef{Name: "g-one", RunID: "r1", WorkDir: wt,
				Task: &GraphTask{Graph: "g", Repo: graphRepo, StateDir: state, Task: task, Head: co.Head}}
			here := &Steps{Queue: "here", Remote: "origin", Log: testLogger(), Plan: func(_ context.Context, r RunRef) (*plan.Plan, error) {
				return &plan.Plan{Name: r.Name, WorkDir: r.WorkDir, StateDir: state}, nil
			}}
			switch path {
			case "run":
				_, _, _, done, err := here.engine(ctx, run)
				if err != nil {
					t.Fatal(err)
				}
				done()
			case "commit":
				co, err := (&GraphSteps{Steps: here}).Commit(ctx, CommitInput{WorkTree: wt, Task: task, Repo: graphRepo, Branch: "agentloop/g/one", Moved: true, Run: &run})
				if err != nil {
					t.Fatalf("the commit taken over: %+v, %v", co, err)
				}
			}
			if got := strings.TrimSpace(gitIn(t, wt, "rev-parse", "HEAD")); got != co.Head {
				t.Errorf("the task's worktree made here is at %s, want %s, where its last commit left its branch", got, co.Head)
			}
			if got := readFileIn(t, filepath.Join(wt, "one.txt")); got != "one\n" {
				t.Errorf("one.txt in the task's worktree here = %q, want the task's committed work", got)
			}
		})
	}
}

// TestGraphMergeGatesFailPushTheMergedResult: on a fleet, a task whose gates
// fail on the merged result has its branch, left at that result, pushed to the
// shared remote, and its head said: a worker resuming the task on another
// clone makes its worktree there, with the work merged before it.
func TestGraphMergeGatesFailPushTheMergedResult(t *testing.T) {
	repo, other := sharedClones(t)
	ctx := t.Context()
	state := filepath.Join(repo, ".agentloop")
	file := tasks.File{Tasks: []tasks.Task{{ID: "a", Title: "a"}, {ID: "b", Title: "b"}}}
	steps := &GraphSteps{Steps: &Steps{Queue: "graph", Remote: "origin", Plan: func(_ context.Context, r RunRef) (*plan.Plan, error) {
		return &plan.Plan{StateDir: state, Gates: []plan.GateSpec{
			{Name: "alone", Argv: []string{"sh", "-c", "test ! -f a.txt"}, Command: "test ! -f a.txt", Required: true},
		}}, nil
	}}}
	heads := map[string]string{}
	for _, id := range []string{"a", "b"} {
		if _, err := steps.WorkTree(ctx, WorkTreeInput{Repo: repo, StateDir: state, Graph: "g", ID: id}); err != nil {
			t.Fatal(err)
		}
		writeIn(t, filepath.Join(state, "worktrees", "g", id), id+".txt", id+"\n")
		co, err := steps.Commit(ctx, CommitInput{WorkTree: filepath.Join(state, "worktrees", "g", id), Task: tasks.Task{ID: id, Title: id}, Repo: repo, Branch: tasks.TaskBranch("g", id)})
		if err != nil || !co.Pushed {
			t.Fatalf("commit %s: %+v, %v", id, co, err)
		}
		heads[id] = co.Head
	}
	merge := func(id string) MergeOutput {
		out, err := steps.Merge(ctx, MergeInput{Repo: repo, StateDir: state, Graph: "g", File: file, Order: []string{id},
			Checkpoints: map[string]string{id: heads[id]}, Heads: map[string]string{id: heads[id]},
			Runs: map[string]RunRef{id: {Name: "g-" + id, RunID: "r1"}}})
		if err != nil || len(out.Merges) != 1 {
			t.Fatalf("merge %s: %+v, %v", id, out, err)
		}
		return out
	}
	if out := merge("a"); !out.Merges[0].Merged {
		t.Fatalf("merge a: %+v", out)
	}
	out := merge("b")
	if m := out.Merges[0]; m.Merged || m.Issue != tasks.MergeGates {
		t.Fatalf("merge b: %+v, want its gates failing on the merged result", m)
	}
	h := out.Heads["b"]
	if h == "" || h == heads["b"] {
		t.Fatalf("b's head after the merge %q (committed at %s), want the merged result", h, heads["b"])
	}
	onOther := &GraphSteps{Steps: &Steps{Queue: "other", WorkTree: other, Remote: "origin"}}
	if _, err := onOther.WorkTree(ctx, WorkTreeInput{Repo: repo, StateDir: state, Graph: "g", ID: "b", Head: h}); err != nil {
		t.Fatalf("b's worktree on another clone at the merged result: %v", err)
	}
	wt := filepath.Join(other, ".agentloop", "worktrees", "g", "b")
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(wt, f)); err != nil {
			t.Errorf("b's worktree on the other clone lacks %s of the merged result: %v", f, err)
		}
	}
}
