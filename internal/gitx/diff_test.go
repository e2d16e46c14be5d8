package gitx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDiff(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{".gitignore": "*.log\n", "a.go": "package a\n\nfunc A() {}\n", "old.txt": "bye\n"})
	cp1, err := Snapshot(t.Context(), dir, "refs/agentloop/t/r/iter-0", "0")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"a.go": "package a\n\nfunc A() int { return 1 }\n", "é new.go": "package a\n", "x.log": "ignored\n", ".agentloop/s": "state\n"})
	run(t, dir, "rm", "-q", "old.txt")
	before := gitState(t, dir)

	d, err := Diff(t.Context(), dir, cp1.Commit, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"diff --git a/a.go b/a.go", "-func A() {}", "+func A() int { return 1 }",
		"diff --git a/é new.go b/é new.go", "new file mode", "deleted file mode", "-bye",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	for _, not := range []string{"x.log", ".agentloop", "\x1b["} {
		if strings.Contains(d, not) {
			t.Errorf("diff contains %q:\n%s", not, d)
		}
	}
	if after := gitState(t, dir); after != before {
		t.Errorf("Diff changed the git state:\n%s\n---\n%s", before, after)
	}

	cp2, err := Snapshot(t.Context(), dir, "refs/agentloop/t/r/iter-1", "1")
	if err != nil {
		t.Fatal(err)
	}
	d2, err := Diff(t.Context(), dir, cp1.Commit, cp2.Commit)
	if err != nil || d2 != d {
		t.Errorf("Diff between snapshots differs from Diff to the tree (err %v):\n%s\n---\n%s", err, d2, d)
	}
	if same, err := Diff(t.Context(), dir, cp2.Commit, ""); err != nil || same != "" {
		t.Errorf("Diff to an unchanged tree = %q, %v; want empty", same, err)
	}
	all, err := Diff(t.Context(), dir, "", cp1.Commit)
	if err != nil || !strings.Contains(all, "+bye") || !strings.Contains(all, "new file mode") {
		t.Errorf("Diff from the empty tree = %q, %v", all, err)
	}
	stat, err := DiffStat(t.Context(), dir, cp1.Commit, cp2.Commit)
	if err != nil || !strings.Contains(stat, "3 files changed") {
		t.Errorf("DiffStat = %q, %v", stat, err)
	}
	if _, err := Diff(t.Context(), dir, "nope", ""); err == nil {
		t.Error("Diff from an unknown snapshot succeeded")
	}
}

func TestDiffIgnoresUserDiffConfig(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.txt": "1\n"})
	for _, kv := range [][2]string{{"diff.noprefix", "true"}, {"color.diff", "always"}, {"diff.mnemonicPrefix", "true"}, {"core.quotePath", "true"}} {
		run(t, dir, "config", kv[0], kv[1])
	}
	cp, err := Snapshot(t.Context(), dir, "refs/agentloop/t/r/i", "x")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"a.txt": "2\n"})
	d, err := Diff(t.Context(), dir, cp.Commit, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d, "diff --git a/a.txt b/a.txt\n") || strings.Contains(d, "\x1b[") {
		t.Errorf("diff not in the canonical form:\n%q", d)
	}
}

// TestDiffsInOneProcess: an iteration's diff and the run's since its start,
// from checkpoints the workspace took (one named by its ref), come from one
// git process, each the same as git diff makes alone: renames, a binary
// file, a mode change, a deletion and a name outside ASCII among them.
// A from the workspace does not know is diffed on its own.
func TestDiffsInOneProcess(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n", "old.txt": strings.Repeat("bye\n", 20), "s.sh": "echo\n"})
	run(t, dir, "config", "diff.noprefix", "true")
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TRACE", trace)
	w := &Workspace{Dir: dir}
	defer w.Close()
	ctx := t.Context()
	start := "refs/agentloop/t/r/iter-1-start"
	if _, _, err := w.Start(ctx, start, "start"); err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"a.go": "package a\n\nfunc A() int { return 1 }\n", "é new.go": "package a\n", "bin": "\x00\x01\x02"})
	if err := os.Rename(filepath.Join(dir, "old.txt"), filepath.Join(dir, "moved.txt")); err != nil {
		t.Fatal(err)
	}
	cp1, _, err := w.Snapshot(ctx, "refs/agentloop/t/r/iter-1", "1")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"bin": "\x00\x03", "b.go": "package a\n"})
	if err := os.Chmod(filepath.Join(dir, "s.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "a.go")); err != nil {
		t.Fatal(err)
	}
	_, tree, err := w.Snapshot(ctx, "refs/agentloop/t/r/iter-2", "2")
	if err != nil {
		t.Fatal(err)
	}
	got := w.Diffs(ctx, cp1, start)
	t.Setenv("GIT_TRACE", "")
	b, _ := os.ReadFile(trace)
	if n := strings.Count(string(b), "trace: built-in: git diff"); n != 1 {
		t.Errorf("Diffs of two checkpoints ran %d git diff processes, want 1:\n%s", n, b)
	}
	for i, from := range []string{cp1, start} {
		want, err := diffTrees(ctx, w.cp.repo.top, from, tree)
		if err != nil {
			t.Fatal(err)
		}
		if got[i].Err != nil || got[i].Text != want {
			t.Errorf("diff from %s (err %v):\n%s\nwant, as git diff makes it:\n%s", from, got[i].Err, got[i].Text, want)
		}
	}
	for _, want := range []string{"rename from old.txt", "Binary files", "old mode 100644", "deleted file mode", "diff --git a/é new.go b/é new.go"} {
		if !strings.Contains(got[1].Text, want) {
			t.Errorf("the diff since the start lacks %q:\n%s", want, got[1].Text)
		}
	}
	// The same tree: no diff. A commit the workspace did not make: its own diff.
	head := run(t, dir, "rev-parse", "HEAD")
	got = w.Diffs(ctx, "refs/agentloop/t/r/iter-2", head)
	want, _ := diffTrees(ctx, w.cp.repo.top, head, tree)
	if got[0].Text != "" || got[0].Err != nil || got[1].Text != want || got[1].Err != nil || want == "" {
		t.Errorf("Diffs(same tree, HEAD) = %q, %v; %q, %v; want \"\"; %q", got[0].Text, got[0].Err, got[1].Text, got[1].Err, want)
	}
}

// TestDiffsAfterTheDifferDied: the diffs of a session come from one git
// diff-tree it keeps; when that process is gone, the next diffs are git's
// all the same, each from a process of its own, and Close ends the one kept.
func TestDiffsAfterTheDifferDied(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.go": "package a\n"})
	w := &Workspace{Dir: dir}
	defer w.Close()
	ctx := t.Context()
	start, _, err := w.Start(ctx, "refs/agentloop/t/r/iter-1-start", "start")
	if err != nil {
		t.Fatal(err)
	}
	for i, kill := range []bool{false, false, true, false} {
		write(t, dir, map[string]string{"a.go": "package a // " + itoa(i) + "\n"})
		before := w.cp.last.Commit
		_, tree, err := w.Snapshot(ctx, "refs/agentloop/t/r/iter-"+itoa(i+1), "i")
		if err != nil {
			t.Fatal(err)
		}
		if kill {
			if err := w.cp.differ.x.Process.Kill(); err != nil {
				t.Fatal(err)
			}
		}
		got := w.Diffs(ctx, before, start)
		for j, from := range []string{before, start} {
			want, err := diffTrees(ctx, w.cp.repo.top, from, tree)
			if err != nil {
				t.Fatal(err)
			}
			if got[j].Err != nil || got[j].Text != want || want == "" {
				t.Errorf("iteration %d: the diff from %s (err %v):\n%s\nwant:\n%s", i+1, from, got[j].Err, got[j].Text, want)
			}
		}
	}
	if w.cp.differ.x != nil || !w.cp.differ.dead {
		t.Error("the differ that died was started again")
	}
	w.Close()
	w2 := &Workspace{Dir: dir}
	start2, _, err := w2.Start(ctx, "refs/agentloop/t/r2/iter-1-start", "start")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"a.go": "package a // last\n"})
	if _, _, err := w2.Snapshot(ctx, "refs/agentloop/t/r2/iter-1", "i"); err != nil {
		t.Fatal(err)
	}
	if d := w2.Diffs(ctx, start2); d[0].Err != nil || d[0].Text == "" || w2.cp.differ.x == nil {
		t.Fatalf("Diffs = %+v, the differ %v", d[0], w2.cp.differ.x)
	}
	x := w2.cp.differ.x
	w2.Close()
	if x.ProcessState == nil || w2.cp.differ.x != nil {
		t.Error("Close left the differ's process running")
	}
}

// TestDifferStopsWhenIdle: the diff-tree process a start begins ahead of the
// first diff stops when nothing asks it for its idle time (a worker keeps
// many runs' workspaces), and a diff asked after starts another.
func TestDifferStopsWhenIdle(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.go": "package a\n"})
	w := &Workspace{Dir: dir}
	defer w.Close()
	w.cp.differ.wait = 50 * time.Millisecond
	ctx := t.Context()
	start, _, err := w.Start(ctx, "refs/agentloop/t/r/iter-1-start", "start")
	if err != nil {
		t.Fatal(err)
	}
	running := func() bool {
		w.cp.differ.mu.Lock()
		defer w.cp.differ.mu.Unlock()
		return w.cp.differ.x != nil
	}
	if !running() {
		t.Fatal("the start began no diff-tree")
	}
	for deadline := time.Now().Add(10 * time.Second); running(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the diff-tree nothing asked still runs after its idle time")
		}
	}
	write(t, dir, map[string]string{"a.go": "package a // 1\n"})
	if _, _, err := w.Snapshot(ctx, "refs/agentloop/t/r/iter-1", "1"); err != nil {
		t.Fatal(err)
	}
	if d := w.Diffs(ctx, start); d[0].Err != nil || !strings.Contains(d[0].Text, "+package a // 1") {
		t.Errorf("the diff after the idle stop: %q, %v", d[0].Text, d[0].Err)
	}
}
