package gitx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRestore(t *testing.T) {
	t.Parallel()
	base := map[string]string{
		".gitignore":     "*.log\nbin/\n",
		"main.go":        "package main\n",
		"pkg/a.go":       "package pkg\n",
		"pkg/a_test.go":  "package pkg\n",
		"docs/readme.md": "# docs\n",
		"data/file":      "a file that becomes a directory\n",
		"tree/x/y.txt":   "a directory that becomes a file\n",
		"keep/unchanged": "same\n",
	}
	tests := []struct {
		name   string
		commit bool              // commit base, else leave it untracked in a repo with no commits
		after  map[string]string // written after the snapshot
		remove []string          // removed after the snapshot
		do     func(t *testing.T, dir string)
	}{
		{name: "modified files", commit: true, after: map[string]string{"main.go": "package main // broken\n", "pkg/a.go": "package pkg\nvar X = 1\n"}},
		{name: "deleted files", commit: true, remove: []string{"pkg/a_test.go", "docs/readme.md"}},
		{name: "added files and directories", commit: true, after: map[string]string{"new.go": "package main\n", "newpkg/deep/b.go": "package deep\n"}},
		{name: "file becomes directory and back", commit: true, remove: []string{"data/file", "tree/x/y.txt", "tree/x", "tree"},
			after: map[string]string{"data/file/inner.txt": "now a dir\n", "tree": "now a file\n"}},
		{name: "mode and symlink", commit: true, do: func(t *testing.T, dir string) {
			if err := os.Chmod(filepath.Join(dir, "main.go"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("main.go", filepath.Join(dir, "link.go")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "no commits yet", commit: false, after: map[string]string{"main.go": "changed\n", "extra.go": "x\n"}, remove: []string{"pkg/a.go"}},
		{name: "everything at once", commit: true,
			after:  map[string]string{"main.go": "x", "z/z/z.go": "z", "keep/new": "n"},
			remove: []string{"docs/readme.md", "pkg/a_test.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var dir string
			if tt.commit {
				dir = newRepo(t, base)
			} else {
				dir = newRepo(t, nil)
				write(t, dir, base)
			}
			// The user's own work in progress: an uncommitted edit and a staged file.
			write(t, dir, map[string]string{"keep/unchanged": "user edit\n", "staged.txt": "staged\n"})
			run(t, dir, "add", "staged.txt")
			cp, err := Snapshot(t.Context(), dir, "refs/agentloop/t/r/iter-0", "before")
			if err != nil {
				t.Fatal(err)
			}
			want := tree(t, dir)
			wantDirs := dirs(t, dir)
			state := gitState(t, dir)

			// The agent's iteration, plus files restore must not touch.
			for _, p := range tt.remove {
				if err := os.RemoveAll(filepath.Join(dir, p)); err != nil {
					t.Fatal(err)
				}
			}
			write(t, dir, tt.after)
			if tt.do != nil {
				tt.do(t, dir)
			}
			write(t, dir, map[string]string{"debug.log": "ignored, new", "bin/tool": "ignored dir", ".agentloop/state/run.json": "{\"iteration\":2}"})

			if err := Restore(t.Context(), dir, cp.Commit); err != nil {
				t.Fatal(err)
			}
			got := tree(t, dir)
			for _, keep := range []string{"debug.log", "bin/tool", ".agentloop/state/run.json"} {
				if got[keep] == "" {
					t.Errorf("Restore removed %s, which it must never touch", keep)
				}
				delete(got, keep)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("work tree after Restore (-want +got):\n%s", diff)
			}
			gotDirs := dirs(t, dir)
			gotDirs = without(gotDirs, ".agentloop", ".agentloop/state", "bin")
			if diff := cmp.Diff(wantDirs, gotDirs); diff != "" {
				t.Errorf("directories after Restore (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(state, gitState(t, dir)); diff != "" {
				t.Errorf("Restore moved HEAD, the branch or the index (-before +after):\n%s", diff)
			}
			st, err := os.Stat(filepath.Join(dir, "main.go"))
			if err != nil || st.Mode().Perm()&0o100 != 0 {
				t.Errorf("main.go mode after Restore = %v, %v; want not executable", st.Mode(), err)
			}
			tr, err := Tree(t.Context(), dir)
			if err != nil || tr != cp.Tree {
				t.Errorf("tree after Restore = %s, %v; want the snapshot's %s", tr, err, cp.Tree)
			}
		})
	}
}

func TestRestoreKeepsStateDirEvenWhenTracked(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.go": "a\n", ".agentloop/state/x.json": "old\n"})
	cp, err := Snapshot(t.Context(), dir, "refs/agentloop/t/r/iter-1", "x")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"a.go": "b\n", ".agentloop/state/x.json": "new\n", ".agentloop/runs/log": "l\n"})
	if err := Restore(t.Context(), dir, cp.Commit); err != nil {
		t.Fatal(err)
	}
	got := tree(t, dir)
	want := map[string]string{"a.go": "a\n", ".agentloop/state/x.json": "new\n", ".agentloop/runs/log": "l\n"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("work tree (-want +got):\n%s", diff)
	}
}

func TestRestoreUnknownCommit(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.go": "a\n"})
	write(t, dir, map[string]string{"a.go": "changed\n"})
	for _, c := range []string{"0123456789abcdef0123456789abcdef01234567", "no-such-ref", "--help"} {
		if err := Restore(t.Context(), dir, c); err == nil {
			t.Errorf("Restore(%q) succeeded", c)
		}
	}
	if got := tree(t, dir)["a.go"]; got != "changed\n" {
		t.Errorf("a failed Restore changed a.go to %q", got)
	}
}

func without(list []string, drop ...string) []string {
	var out []string
	for _, s := range list {
		if !contains(drop, s) {
			out = append(out, s)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestStateDirInSubdirectoryIsLeftAlone(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"svc/main.go": "package main\n"})
	sub := filepath.Join(dir, "svc")
	write(t, sub, map[string]string{".agentloop/state/s.json": "1"})
	cp, err := Snapshot(t.Context(), sub, "refs/agentloop/s/r/iter-1", "x")
	if err != nil {
		t.Fatal(err)
	}
	if got := lsTree(t, dir, cp.Commit); !cmp.Equal(got, []string{"svc/main.go"}) {
		t.Errorf("snapshot files = %q", got)
	}
	write(t, sub, map[string]string{".agentloop/state/s.json": "2", "main.go": "changed"})
	if err := Restore(t.Context(), sub, cp.Commit); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"svc/main.go": "package main\n", "svc/.agentloop/state/s.json": "2"}
	if diff := cmp.Diff(want, tree(t, dir)); diff != "" {
		t.Errorf("work tree (-want +got):\n%s", diff)
	}
}
