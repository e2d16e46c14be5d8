package gitx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShareCheckpoints: a clone's checkpoint refs reach another clone of the
// same remote, a checkpoint taken again replaces its ref there, and the other
// clone restores from it.
func TestShareCheckpoints(t *testing.T) {
	ctx := t.Context()
	a, b := sharedClones(t)
	const prefix = "refs/agentloop/build/r1/"
	if !HasRemote(ctx, a, "origin") || HasRemote(ctx, a, "elsewhere") {
		t.Fatal("HasRemote does not tell the remotes")
	}

	write(t, a, map[string]string{"work.txt": "one\n"})
	first, err := Snapshot(ctx, a, prefix+"iter-1", "iteration 1")
	if err != nil {
		t.Fatal(err)
	}
	if err := ShareCheckpoints(ctx, a, "origin", prefix); err != nil {
		t.Fatal(err)
	}
	write(t, a, map[string]string{"work.txt": "two\n"})
	again, err := Snapshot(ctx, a, prefix+"iter-1", "iteration 1 again")
	if err != nil {
		t.Fatal(err)
	}
	if err := ShareCheckpoints(ctx, a, "origin", prefix); err != nil {
		t.Fatalf("a checkpoint taken again: %v", err)
	}
	if err := FetchCheckpoints(ctx, b, "origin", prefix); err != nil {
		t.Fatal(err)
	}
	got := run(t, b, "rev-parse", prefix+"iter-1")
	if got != again.Commit || got == first.Commit {
		t.Errorf("clone b has %s at iter-1, want the latest %s", got, again.Commit)
	}
	if err := Restore(ctx, b, got); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(b, "work.txt")); err != nil || string(b) != "two\n" {
		t.Errorf("clone b after the restore: %q, %v", b, err)
	}
	for _, bad := range []struct{ remote, prefix string }{{"-u", prefix}, {"origin", "refs/heads/"}, {"origin", "refs/agentloop/x"}, {"origin", "refs/agentloop/*/"}} {
		if err := ShareCheckpoints(ctx, a, bad.remote, bad.prefix); err == nil {
			t.Errorf("ShareCheckpoints(%q, %q) accepted", bad.remote, bad.prefix)
		}
	}
}

// TestShareCheckpointsTogether: the refs of several runs go in one push, and
// a bad folder among them refuses the push before anything is sent.
func TestShareCheckpointsTogether(t *testing.T) {
	ctx := t.Context()
	a, b := sharedClones(t)
	prefixes := []string{"refs/agentloop/build/r1/", "refs/agentloop/build/r2/", "refs/agentloop/test/r3/"}
	want := map[string]string{}
	for i, p := range prefixes {
		write(t, a, map[string]string{"work.txt": p + "\n"})
		c, err := Snapshot(ctx, a, p+"iter-1", "iteration 1")
		if err != nil {
			t.Fatal(err)
		}
		want[p] = c.Commit
		if i == 0 {
			if err := ShareCheckpoints(ctx, a, "origin", "refs/agentloop/build/r1/", "refs/heads/"); err == nil {
				t.Fatal("a branch folder among the checkpoint folders was accepted")
			}
		}
	}
	if err := ShareCheckpoints(ctx, a, "origin"); err != nil {
		t.Fatalf("no folder: %v", err)
	}
	if err := ShareCheckpoints(ctx, a, "origin", prefixes...); err != nil {
		t.Fatal(err)
	}
	for _, p := range prefixes {
		if err := FetchCheckpoints(ctx, b, "origin", p); err != nil {
			t.Fatal(err)
		}
		if got := run(t, b, "rev-parse", p+"iter-1"); got != want[p] {
			t.Errorf("clone b has %s at %siter-1, want %s", got, p, want[p])
		}
	}
}

// TestShareBranch: a branch committed on one clone reaches another clone of
// the same remote, replacing the branch of the same name there, also when a
// worktree of that clone has it checked out.
func TestShareBranch(t *testing.T) {
	ctx := t.Context()
	a, b := sharedClones(t)
	const branch = "agentloop/g/one"
	if err := AddWorktree(ctx, b, filepath.Join(t.TempDir(), "wt"), branch, ""); err != nil {
		t.Fatal(err)
	}
	run(t, a, "checkout", "-q", "-b", branch)
	write(t, a, map[string]string{"one.txt": "one\n"})
	if err := Commit(ctx, a, "one"); err != nil {
		t.Fatal(err)
	}
	head := BranchCommit(ctx, a, branch)
	if head == "" || BranchCommit(ctx, b, branch) == head || BranchCommit(ctx, b, "agentloop/g/none") != "" {
		t.Fatal("BranchCommit does not tell the branches")
	}
	if err := ShareBranch(ctx, a, "origin", branch); err != nil {
		t.Fatal(err)
	}
	if err := FetchBranch(ctx, b, "origin", branch); err != nil {
		t.Fatal(err)
	}
	if got := BranchCommit(ctx, b, branch); got != head {
		t.Errorf("clone b has %s at %s, want %s", got, branch, head)
	}
	for range 2 { // the second finds none to delete
		if err := DeleteRemoteBranch(ctx, b, "origin", branch); err != nil {
			t.Fatal(err)
		}
	}
	if err := FetchBranch(ctx, b, "origin", branch); err == nil {
		t.Error("the branch was fetched after it was deleted on the remote")
	}
	for _, bad := range []struct{ remote, branch string }{{"-u", branch}, {"origin", "-b"}, {"origin", "a..b"}} {
		if err := ShareBranch(ctx, a, bad.remote, bad.branch); err == nil {
			t.Errorf("ShareBranch(%q, %q) accepted", bad.remote, bad.branch)
		}
	}
}

// sharedClones are a repository whose remote origin is a bare repository, and
// another clone of that remote.
func sharedClones(t *testing.T) (a, b string) {
	a = newRepo(t, map[string]string{"README.md": "x\n"})
	remote := filepath.Join(t.TempDir(), "remote.git")
	run(t, a, "init", "-q", "--bare", remote)
	run(t, a, "remote", "add", "origin", remote)
	run(t, a, "push", "-q", "origin", "HEAD")
	b = filepath.Join(t.TempDir(), "b")
	run(t, a, "clone", "-q", "-b", run(t, a, "symbolic-ref", "--short", "HEAD"), remote, b)
	return a, b
}

// TestRemoteRefs: the checkpoint refs a clone shared are listed on the
// remote, and those deleted there are gone while the others stay; a branch is
// never deleted as a hidden ref.
func TestRemoteRefs(t *testing.T) {
	ctx := t.Context()
	a, _ := sharedClones(t)
	for _, p := range []string{"refs/agentloop/build/r1/", "refs/agentloop/build/r2/"} {
		write(t, a, map[string]string{"work.txt": p + "\n"})
		if _, err := Snapshot(ctx, a, p+"iter-1", "iteration 1"); err != nil {
			t.Fatal(err)
		}
		if err := ShareCheckpoints(ctx, a, "origin", p); err != nil {
			t.Fatal(err)
		}
	}
	got, err := RemoteRefs(ctx, a, "origin", "refs/agentloop/")
	if err != nil || len(got) != 2 || got[0] != "refs/agentloop/build/r1/"+journalRef || got[1] != "refs/agentloop/build/r2/"+journalRef {
		t.Fatalf("RemoteRefs = %q, %v", got, err)
	}
	if err := DeleteRemoteRefs(ctx, a, "origin", []string{"refs/agentloop/build/r1/" + journalRef}); err != nil {
		t.Fatal(err)
	}
	if got, err := RemoteRefs(ctx, a, "origin", "refs/agentloop/"); err != nil || len(got) != 1 || got[0] != "refs/agentloop/build/r2/"+journalRef {
		t.Errorf("after the delete: %q, %v", got, err)
	}
	if err := DeleteRemoteRefs(ctx, a, "origin", []string{"refs/heads/main"}); err == nil {
		t.Error("a branch was deleted as a hidden ref")
	}
	if _, err := RemoteRefs(ctx, a, "-x", "refs/agentloop/"); err == nil {
		t.Error("a remote like an option was taken")
	}
}

// TestPackRefs: a clone's checkpoint refs, loose after their snapshots, are
// packed with their values kept; the clone shares and fetches them as before,
// and a checkpoint taken after the pack moves its ref. A folder that is no
// repository is an error naming it.
func TestPackRefs(t *testing.T) {
	ctx := t.Context()
	a, b := sharedClones(t)
	const prefix = "refs/agentloop/build/r1/"
	want := map[string]string{}
	for i, text := range []string{"one\n", "two\n", "three\n"} {
		write(t, a, map[string]string{"work.txt": text})
		name := prefix + "iter-" + string(rune('1'+i))
		s, err := Snapshot(ctx, a, name, "iteration")
		if err != nil {
			t.Fatal(err)
		}
		want[name] = s.Commit
	}
	loose := func() []string {
		var names []string
		_ = filepath.WalkDir(filepath.Join(a, ".git", "refs", "agentloop"), func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				names = append(names, path)
			}
			return nil
		})
		return names
	}
	if len(loose()) != 3 {
		t.Fatalf("loose checkpoint refs before the pack: %v, want 3", loose())
	}
	if err := PackRefs(ctx, a); err != nil {
		t.Fatal(err)
	}
	if l := loose(); len(l) != 0 {
		t.Errorf("loose checkpoint refs after the pack: %v", l)
	}
	for name, commit := range want {
		if got := run(t, a, "rev-parse", name); got != commit {
			t.Errorf("%s is %s after the pack, want %s", name, got, commit)
		}
	}
	write(t, a, map[string]string{"work.txt": "three again\n"})
	again, err := Snapshot(ctx, a, prefix+"iter-3", "iteration 3 again")
	if err != nil {
		t.Fatal(err)
	}
	if err := ShareCheckpoints(ctx, a, "origin", prefix); err != nil {
		t.Fatal(err)
	}
	if err := FetchCheckpoints(ctx, b, "origin", prefix); err != nil {
		t.Fatal(err)
	}
	if got := run(t, b, "rev-parse", prefix+"iter-3"); got != again.Commit {
		t.Errorf("the other clone has %s at iter-3, want the one taken after the pack, %s", got, again.Commit)
	}
	if got := run(t, b, "rev-parse", prefix+"iter-1"); got != want[prefix+"iter-1"] {
		t.Errorf("the other clone has %s at iter-1, want %s", got, want[prefix+"iter-1"])
	}
	none := t.TempDir()
	if err := PackRefs(ctx, none); err == nil || !strings.Contains(err.Error(), none) {
		t.Errorf("PackRefs of a folder that is no repository: %v, want an error naming it", err)
	}
}

// TestPackRefsBesideCheckpoints: the refs are packed again and again while
// checkpoints are taken in the same clone, new refs and a ref moved each
// time (a run's steps at work while the worker packs between two pushes):
// no checkpoint fails, and every ref ends at the commit last written to it.
func TestPackRefsBesideCheckpoints(t *testing.T) {
	ctx := t.Context()
	a, _ := sharedClones(t)
	const prefix = "refs/agentloop/build/r1/"
	stop := make(chan struct{})
	packed := make(chan error, 1)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				if n == 0 {
					packed <- errors.New("no pack ran beside the checkpoints")
					return
				}
				packed <- nil
				return
			default:
			}
			if err := PackRefs(ctx, a); err != nil {
				packed <- err
				return
			}
			n++
		}
	}()
	want := map[string]string{}
	for i := range 15 {
		write(t, a, map[string]string{"work.txt": fmt.Sprintln(i)})
		for _, name := range []string{fmt.Sprintf("%siter-%d", prefix, i), prefix + "last"} {
			s, err := Snapshot(ctx, a, name, "iteration")
			if err != nil {
				close(stop)
				t.Fatalf("checkpoint %d beside the packs: %v", i, err)
			}
			want[name] = s.Commit
		}
	}
	close(stop)
	if err := <-packed; err != nil {
		t.Fatal(err)
	}
	for name, commit := range want {
		if got := run(t, a, "rev-parse", name); got != commit {
			t.Errorf("%s is %s, want %s", name, got, commit)
		}
	}
}

func TestRemoteURL(t *testing.T) {
	ctx := t.Context()
	a, _ := sharedClones(t)
	run(t, a, "remote", "add", "gh", "git@github.com:acme/tool.git")
	if got, err := RemoteURL(ctx, a, "gh"); err != nil || got != "git@github.com:acme/tool.git" {
		t.Errorf("RemoteURL(gh) = %q, %v", got, err)
	}
	if _, err := RemoteURL(ctx, a, "nope"); err == nil {
		t.Error("RemoteURL of a remote that is not there: no error")
	}
	if _, err := RemoteURL(ctx, a, "--help"); err == nil {
		t.Error("RemoteURL took an option for a remote")
	}
}
