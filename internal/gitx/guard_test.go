package gitx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/evidence"
)

// What an agent can do to agentloop's records, each found, named and put back.
func TestGuardCheck(t *testing.T) {
	t.Parallel()
	const prefix = "refs/agentloop/build/r1/"
	type want struct {
		kinds    []evidence.RecordKind
		what     string // in the changes' text
		repaired bool   // every change repaired
	}
	tests := []struct {
		name     string
		detached bool
		agent    func(t *testing.T, dir string)
		want     want
	}{
		{name: "nothing", agent: func(t *testing.T, dir string) { write(t, dir, map[string]string{"a.txt": "edited\n"}) }},
		{name: "deletes a checkpoint ref", agent: func(t *testing.T, dir string) {
			run(t, dir, "update-ref", "-d", prefix+"iter-1")
		}, want: want{kinds: []evidence.RecordKind{evidence.RecordRefDeleted}, what: "deleted " + prefix + "iter-1 (restored)", repaired: true}},
		{name: "deletes every agentloop ref by hand", agent: func(t *testing.T, dir string) {
			run(t, dir, "pack-refs", "--all")
			if err := os.RemoveAll(filepath.Join(dir, ".git", "refs", "agentloop")); err != nil {
				t.Fatal(err)
			}
			packed := filepath.Join(dir, ".git", "packed-refs")
			b, err := os.ReadFile(packed)
			if err != nil {
				t.Fatal(err)
			}
			var keep []string
			for line := range strings.SplitSeq(string(b), "\n") {
				if !strings.Contains(line, "refs/agentloop/") {
					keep = append(keep, line)
				}
			}
			if err := os.WriteFile(packed, []byte(strings.Join(keep, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}, want: want{kinds: []evidence.RecordKind{evidence.RecordRefDeleted, evidence.RecordRefDeleted}, what: "deleted " + prefix + "iter-1-start (restored)", repaired: true}},
		{name: "moves a checkpoint ref", agent: func(t *testing.T, dir string) {
			run(t, dir, "update-ref", prefix+"iter-1", "HEAD~1")
		}, want: want{kinds: []evidence.RecordKind{evidence.RecordRefMoved}, what: "moved " + prefix + "iter-1", repaired: true}},
		{name: "adds a ref among the checkpoints", agent: func(t *testing.T, dir string) {
			run(t, dir, "update-ref", prefix+"iter-9", "HEAD")
		}, want: want{kinds: []evidence.RecordKind{evidence.RecordRefAdded}, what: "created " + prefix + "iter-9", repaired: true}},
		{name: "switches branch", agent: func(t *testing.T, dir string) {
			run(t, dir, "checkout", "-q", "-b", "evil")
		}, want: want{kinds: []evidence.RecordKind{evidence.RecordSwitched}, what: "switched the branch from main to evil (git: checkout: moving from main to evil) (back on main)", repaired: true}},
		{name: "detaches HEAD", agent: func(t *testing.T, dir string) {
			run(t, dir, "checkout", "-q", "--detach", "HEAD~1")
		}, want: want{kinds: []evidence.RecordKind{evidence.RecordSwitched}, what: "detached HEAD at", repaired: true}},
		{name: "switches and deletes the branch", agent: func(t *testing.T, dir string) {
			run(t, dir, "checkout", "-q", "-b", "evil")
			run(t, dir, "branch", "-q", "-D", "main")
		}, want: want{kinds: []evidence.RecordKind{evidence.RecordRewritten, evidence.RecordSwitched}, what: "deleted main", repaired: true}},
		{name: "commits", agent: func(t *testing.T, dir string) {
			write(t, dir, map[string]string{"a.txt": "committed\n"})
			run(t, dir, "commit", "-q", "-am", "agent work")
		}, want: want{kinds: []evidence.RecordKind{evidence.RecordCommitted}, what: `committed on main: 1 commit`, repaired: true}},
		{name: "resets hard back a commit", agent: func(t *testing.T, dir string) {
			run(t, dir, "reset", "-q", "--hard", "HEAD~1")
		}, want: want{kinds: []evidence.RecordKind{evidence.RecordReset}, what: "reset main back 1 commit", repaired: true}},
		{name: "resets hard in place", agent: func(t *testing.T, dir string) {
			run(t, dir, "reset", "-q", "--hard")
		}, want: want{kinds: []evidence.RecordKind{evidence.RecordReset}, what: "ran git reset (reset: moving to HEAD)", repaired: true}},
		{name: "amends the last commit", agent: func(t *testing.T, dir string) {
			run(t, dir, "commit", "-q", "--amend", "-m", "rewritten")
		}, want: want{kinds: []evidence.RecordKind{evidence.RecordRewritten}, what: "rewrote the history of main", repaired: true}},
		{name: "moves a detached HEAD", detached: true, agent: func(t *testing.T, dir string) {
			run(t, dir, "checkout", "-q", "main")
		}, want: want{kinds: []evidence.RecordKind{evidence.RecordSwitched}, what: "put HEAD on the branch main", repaired: true}},
		{name: "deletes a ref and prunes its commit", agent: func(t *testing.T, dir string) {
			run(t, dir, "update-ref", "-d", prefix+"iter-1")
			run(t, dir, "reflog", "expire", "--expire=now", "--all")
			run(t, dir, "gc", "-q", "--prune=now")
		}, want: want{kinds: []evidence.RecordKind{evidence.RecordRefDeleted}, what: "could not be restored"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := newRepo(t, map[string]string{"a.txt": "one\n"})
			write(t, dir, map[string]string{"a.txt": "two\n"})
			run(t, dir, "commit", "-q", "-am", "two")
			// A checkpoint only its ref holds, and one on the branch.
			write(t, dir, map[string]string{"a.txt": "checkpoint\n"})
			w := &Workspace{Dir: dir}
			defer w.Close()
			if _, _, err := w.Snapshot(t.Context(), prefix+"iter-1", "checkpoint"); err != nil {
				t.Fatal(err)
			}
			run(t, dir, "update-ref", prefix+"iter-1-start", "HEAD")
			run(t, dir, "checkout", "-q", "--", "a.txt")
			if tt.detached {
				run(t, dir, "checkout", "-q", "--detach")
			}
			before := gitState(t, dir)
			refsBefore := run(t, dir, "for-each-ref", prefix)
			g, err := w.Guard(t.Context(), prefix)
			if err != nil {
				t.Fatal(err)
			}
			tt.agent(t, dir)
			got := g.Check(t.Context())
			var kinds []evidence.RecordKind
			for _, c := range got {
				kinds = append(kinds, c.Kind)
			}
			if strings.Join(kindStrings(kinds), ",") != strings.Join(kindStrings(tt.want.kinds), ",") {
				t.Fatalf("kinds = %v, want %v: %s", kinds, tt.want.kinds, got)
			}
			if !strings.Contains(got.String(), tt.want.what) {
				t.Errorf("changes %q do not say %q", got, tt.want.what)
			}
			for _, c := range got {
				if (c.Repaired != "") != tt.want.repaired {
					t.Errorf("%s: repaired = %q, want repaired %v", c.What, c.Repaired, tt.want.repaired)
				}
			}
			if !tt.want.repaired {
				return
			}
			after := gitState(t, dir)
			// HEAD and the branch are back; the index is as the agent left it.
			if h, b := firstTwo(before), firstTwo(after); h != b {
				t.Errorf("HEAD and branch after the repair:\n%s\nwant\n%s", b, h)
			}
			if r := run(t, dir, "for-each-ref", prefix); r != refsBefore {
				t.Errorf("refs after the repair:\n%s\nwant\n%s", r, refsBefore)
			}
			if again := g.Check(t.Context()); len(again) != 0 && tt.want.kinds[0] != evidence.RecordReset {
				t.Errorf("a second check still finds %s", again)
			}
		})
	}
}

// An agent's commit is undone on the branch, and what it committed stays in
// the work tree.
func TestGuardKeepsCommittedWork(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.txt": "one\n"})
	w := &Workspace{Dir: dir}
	defer w.Close()
	g, err := w.Guard(t.Context(), "refs/agentloop/x/r/")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"a.txt": "agent\n", "new.txt": "new\n"})
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "agent")
	got := g.Check(t.Context())
	if len(got) != 1 || got[0].Kind != evidence.RecordCommitted || got.Escalates() {
		t.Fatalf("changes = %s, want one commit that does not escalate", got)
	}
	for name, want := range map[string]string{"a.txt": "agent\n", "new.txt": "new\n"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	if log := run(t, dir, "log", "--format=%s", "main"); log != "initial" {
		t.Errorf("main's history = %q, want only the initial commit", log)
	}
}

// A repository with no commit yet: the agent's first commit is undone too.
func TestGuardUnborn(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, nil)
	w := &Workspace{Dir: dir}
	defer w.Close()
	g, err := w.Guard(t.Context(), "refs/agentloop/x/r/")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"a.txt": "agent\n"})
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "agent")
	got := g.Check(t.Context())
	if len(got) != 1 || got[0].Kind != evidence.RecordCommitted || got[0].Repaired != "main back at no commit" {
		t.Fatalf("changes = %#v", got)
	}
	if h, err := git(t.Context(), dir, "rev-parse", "-q", "--verify", "HEAD"); err == nil {
		t.Errorf("HEAD = %s, want no commit", h)
	}
}

func TestGuardRefusesABranchPrefix(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, map[string]string{"a.txt": "one\n"})
	w := &Workspace{Dir: dir}
	if _, err := w.Guard(t.Context(), "refs/agentloop/x"); err == nil {
		t.Fatal("a prefix without a trailing slash was taken")
	}
}

func kindStrings(ks []evidence.RecordKind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// firstTwo is the HEAD and branch lines of a gitState.
func firstTwo(state string) string {
	lines := strings.SplitN(state, "\n", 3)
	return lines[0] + "\n" + lines[1]
}
