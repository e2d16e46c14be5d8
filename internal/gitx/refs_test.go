package gitx

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRefStoreWritesRefsGitReads(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a": "a\n"})
	ctx := t.Context()
	r, err := openRepo(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	rs := refStore{top: r.top, common: r.commonDir}
	head := run(t, dir, "rev-parse", "HEAD")
	write(t, dir, map[string]string{"a": "b\n"})
	run(t, dir, "commit", "-q", "-am", "second")
	second := run(t, dir, "rev-parse", "HEAD")

	const ref = "refs/agentloop/build/20260102-030405-abc/iter-1"
	if got := rs.get(ctx, ref); got != "" {
		t.Errorf("get of a missing ref = %q", got)
	}
	if err := rs.set(ctx, ref, head); err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "rev-parse", ref); got != head {
		t.Errorf("git reads %s as %s, want %s", ref, got, head)
	}
	// Packed by git gc, then moved: the loose file wins, as in git.
	run(t, dir, "pack-refs", "--all")
	if got := rs.get(ctx, ref); got != head {
		t.Errorf("get of a packed ref = %q, want %s", got, head)
	}
	if err := rs.set(ctx, ref, second); err != nil {
		t.Fatal(err)
	}
	if got, gotRS := run(t, dir, "rev-parse", ref), rs.get(ctx, ref); got != second || gotRS != second {
		t.Errorf("after a move git reads %s, get %s; want %s", got, gotRS, second)
	}
	if got := run(t, dir, "for-each-ref", "--format=%(refname)", "refs/agentloop/"); got != ref {
		t.Errorf("for-each-ref = %q", got)
	}
	if leftover, _ := filepath.Glob(filepath.Join(r.gitDir, refTempPrefix+"*")); len(leftover) > 0 {
		t.Errorf("temporary files left: %v", leftover)
	}
	if got := run(t, dir, "for-each-ref", "--format=%(refname)"); got != ref+"\nrefs/heads/main" {
		t.Errorf("refs = %q", got)
	}
}

// TestRefTempOfDeadProcessRemoved: the temporary file of a ref write cut by a
// kill is outside refs/ (git never takes it for a ref) and is removed when a
// checkpoint next opens the repository.
func TestRefTempOfDeadProcessRemoved(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a": "a\n"})
	r, err := openRepo(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(r.gitDir, refTempPrefix+"999999999-123")
	if err := os.WriteFile(dead, []byte("0123"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "for-each-ref", "--format=%(refname)"); got != "refs/heads/main" {
		t.Errorf("refs with a cut write = %q", got)
	}
	if _, err := Snapshot(t.Context(), dir, "refs/agentloop/p/r/iter-1", "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead process's temporary file is still there: %v", err)
	}
}

func TestRefStoreLinkedWorktreeWritesSharedRefs(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a": "a\n"})
	wt := filepath.Join(t.TempDir(), "task")
	if err := AddWorktree(t.Context(), repo, wt, "task", ""); err != nil {
		t.Fatal(err)
	}
	write(t, wt, map[string]string{"b": "b\n"})
	cp, err := Snapshot(t.Context(), wt, "refs/agentloop/p/r/iter-1", "x")
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, repo, "rev-parse", "refs/agentloop/p/r/iter-1"); got != cp.Commit {
		t.Errorf("the main work tree reads the task's checkpoint ref as %s, want %s", got, cp.Commit)
	}
}

func TestPlainRef(t *testing.T) {
	t.Parallel()
	for ref, want := range map[string]bool{
		"refs/agentloop/build/20260102-030405-abc/iter-3":       true,
		"refs/agentloop/build/20260102-030405-abc/iter-3-start": true,
		"refs/agentloop/my_proc.v2/r/iter-1":                    true,
		"refs":                                                  false,
		"HEAD":                                                  false,
		"refs/agentloop//iter-1":                                false,
		"refs/agentloop/../../config":                           false,
		"refs/agentloop/a..b/iter-1":                            false,
		"refs/agentloop/.hidden/iter-1":                         false,
		"refs/agentloop/x.lock/iter-1":                          false,
		"refs/agentloop/a b/iter-1":                             false,
		"refs/agentloop/a~1":                                    false,
		"refs/agentloop/é/iter-1":                               false,
		"refs/agentloop/x/":                                     false,
	} {
		if got := plainRef(ref); got != want {
			t.Errorf("plainRef(%q) = %v, want %v", ref, got, want)
		}
	}
}

func TestMayListStateDir(t *testing.T) {
	t.Parallel()
	index := func(version uint32, body string) []byte {
		b := []byte("DIRC\x00\x00\x00\x00\x00\x00\x00\x01")
		binary.BigEndian.PutUint32(b[4:8], version)
		return append(b, body...)
	}
	for _, tc := range []struct {
		name  string
		index []byte
		want  bool
	}{
		{"v2 without it", index(2, "src/a.go\x00"), false},
		{"v3 without it", index(3, "src/a.go\x00"), false},
		{"v2 with it", index(2, "src/.agentloop/state/x.json\x00"), true},
		{"v4 prefix-compressed paths", index(4, "src/a.go\x00"), true},
		{"split index", index(2, "src/a.go\x00link"), true},
		{"not an index", []byte("hello world, no index here"), true},
		{"short", []byte("DIRC"), true},
	} {
		if got := mayListStateDir(tc.index); got != tc.want {
			t.Errorf("%s: mayListStateDir = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSnapshotLeavesTrackedStateDirOutWhateverTheIndexVersion: the state
// directory is left out of a checkpoint whether git's index stores paths whole
// or prefix-compressed.
func TestSnapshotLeavesTrackedStateDirOutWhateverTheIndexVersion(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2", "3", "4"} {
		dir := newRepo(t, map[string]string{"a.go": "a\n", ".agentloop/state/x.json": "{}\n", "sub/.agentloop/y": "y\n"})
		run(t, dir, "update-index", "--index-version", version)
		cp, err := Snapshot(t.Context(), dir, "refs/agentloop/t/r/iter-1", "x")
		if err != nil {
			t.Fatal(err)
		}
		if files := lsTree(t, dir, cp.Commit); strings.Join(files, ",") != "a.go" {
			t.Errorf("index version %s: checkpoint holds %v, want only a.go", version, files)
		}
	}
}

// The guard reads the run's refs, HEAD's branch and HEAD's commit from the
// ref files as git reads them, in every shape git leaves them; what only git
// can read (a symbolic ref, a ref being written, reftable) goes to git.
func TestGuardReadsRefFilesAsGit(t *testing.T) {
	t.Parallel()
	const prefix = "refs/agentloop/b/r1/"
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string // the work tree to guard, when not dir
		files bool                                  // read from the files
	}{
		{"loose refs", func(t *testing.T, dir string) string { return "" }, true},
		{"packed refs", func(t *testing.T, dir string) string {
			run(t, dir, "pack-refs", "--all")
			return ""
		}, true},
		{"packed and loose, loose wins", func(t *testing.T, dir string) string {
			run(t, dir, "pack-refs", "--all")
			run(t, dir, "update-ref", prefix+"iter-1", "HEAD~1")
			run(t, dir, "commit", "-q", "--allow-empty", "-m", "loose main")
			return ""
		}, true},
		{"annotated tag packed", func(t *testing.T, dir string) string {
			run(t, dir, "tag", "-a", "-m", "v1", "v1")
			run(t, dir, "pack-refs", "--all")
			return ""
		}, true},
		{"detached HEAD", func(t *testing.T, dir string) string {
			run(t, dir, "checkout", "-q", "--detach", "HEAD~1")
			return ""
		}, true},
		{"no ref under the prefix", func(t *testing.T, dir string) string {
			run(t, dir, "update-ref", "-d", prefix+"iter-1")
			run(t, dir, "update-ref", "-d", prefix+"deep/iter-2")
			return ""
		}, true},
		{"unborn branch", func(t *testing.T, dir string) string {
			run(t, dir, "checkout", "-q", "--orphan", "fresh")
			return ""
		}, true},
		{"linked work tree", func(t *testing.T, dir string) string {
			wt := filepath.Join(t.TempDir(), "task")
			if err := AddWorktree(t.Context(), dir, wt, "task", ""); err != nil {
				t.Fatal(err)
			}
			return wt
		}, true},
		{"symbolic ref under the prefix", func(t *testing.T, dir string) string {
			run(t, dir, "symbolic-ref", prefix+"alias", "refs/heads/main")
			return ""
		}, false},
		{"a ref being written", func(t *testing.T, dir string) string {
			if err := os.WriteFile(filepath.Join(dir, ".git", filepath.FromSlash(prefix), "iter-3.lock"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			return ""
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := newRepo(t, map[string]string{"a.txt": "one\n"})
			run(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
			run(t, dir, "update-ref", prefix+"iter-1", "HEAD")
			run(t, dir, "update-ref", prefix+"deep/iter-2", "HEAD~1")
			run(t, dir, "update-ref", "refs/agentloop/b/r10/iter-1", "HEAD")
			top := dir
			if wt := tt.setup(t, dir); wt != "" {
				top = wt
			}
			w := &Workspace{Dir: top}
			defer w.Close()
			g, err := w.Guard(t.Context(), prefix)
			if err != nil {
				t.Fatal(err)
			}
			refs, okRefs := g.store.list(prefix)
			branch, head, okHead := g.store.head()
			if okRefs && okHead != tt.files || !okRefs && tt.files {
				t.Fatalf("read from the files: refs %v, HEAD %v; want %v", okRefs, okHead, tt.files)
			}
			gitRead := *g
			gitRead.store = refStore{} // refs not in files: git reads all
			want, err := gitRead.read(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			got, err := g.read(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(guardState{})); diff != "" {
				t.Errorf("state read (-git +files):\n%s", diff)
			}
			if tt.files {
				if diff := cmp.Diff(want.refs, refs); diff != "" || branch != want.branch || head != want.head {
					t.Errorf("files: branch %q head %q, git: %q %q; refs (-git +files):\n%s", branch, head, want.branch, want.head, diff)
				}
				if oid, ok := g.store.resolve("refs/heads/main"); !ok || oid != resolveCommit(t.Context(), top, "refs/heads/main") {
					t.Errorf("main read from the files as %q (%v)", oid, ok)
				}
			}
		})
	}
}

// TestStartLinksTheLastRef: an iteration's start ref, which names the commit
// the last iteration's ref names, is a second name of that ref's file, not a
// file of its own; when that file is gone (its refs packed), the start ref is
// written all the same.
func TestStartLinksTheLastRef(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.go": "package a\n"})
	w := &Workspace{Dir: dir}
	defer w.Close()
	ctx := t.Context()
	if _, _, err := w.Start(ctx, "refs/agentloop/n/r/iter-1-start", "start"); err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"a.go": "package a // 1\n"})
	end, _, err := w.Snapshot(ctx, "refs/agentloop/n/r/iter-1", "1")
	if err != nil {
		t.Fatal(err)
	}
	start, _, err := w.Start(ctx, "refs/agentloop/n/r/iter-2-start", "start")
	if err != nil || start != end {
		t.Fatalf("Start = %s, %v; want %s", start, err, end)
	}
	refs := filepath.Join(dir, ".git", "refs", "agentloop", "n", "r")
	a, errA := os.Stat(filepath.Join(refs, "iter-1"))
	b, errB := os.Stat(filepath.Join(refs, "iter-2-start"))
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		t.Errorf("iter-2-start is not a second name of iter-1's file (%v, %v)", errA, errB)
	}
	if got := run(t, dir, "rev-parse", "refs/agentloop/n/r/iter-2-start"); got != end {
		t.Errorf("iter-2-start names %s, want %s", got, end)
	}
	write(t, dir, map[string]string{"a.go": "package a // 2\n"})
	end, _, err = w.Snapshot(ctx, "refs/agentloop/n/r/iter-2", "2")
	if err != nil {
		t.Fatal(err)
	}
	run(t, dir, "pack-refs", "--all", "--prune")
	if _, _, err := w.Start(ctx, "refs/agentloop/n/r/iter-3-start", "start"); err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "rev-parse", "refs/agentloop/n/r/iter-3-start"); got != end {
		t.Errorf("iter-3-start, its last ref packed, names %s, want %s", got, end)
	}
	if out := run(t, dir, "for-each-ref", "refs/agentloop/n/r/"); strings.Count(out, "\n")+1 != 5 {
		t.Errorf("refs of the run:\n%s\nwant 5", out)
	}
}
