package gitx

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
