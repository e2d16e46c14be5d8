package gitx

import (
	"strings"
	"testing"
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
