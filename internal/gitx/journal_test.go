package gitx

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestShareCheckpointsJournal: clone a shares the checkpoints of two runs in
// one push and the remote holds one ref per run; clone b fetches one run's
// and has the same refs at the same commits as a, and no journal ref; a
// checkpoint taken again in a moves in b after the next share; the same
// checkpoints shared again leave the remote's journal as it was.
func TestShareCheckpointsJournal(t *testing.T) {
	ctx := t.Context()
	a, b := sharedClones(t)
	remote := run(t, a, "remote", "get-url", "origin")
	const r1, r2 = "refs/agentloop/build/r1/", "refs/agentloop/build/r2/"
	for _, p := range []string{r1, r2} {
		for _, name := range []string{"iter-1-start", "iter-1", "iter-2"} {
			checkpoint(t, a, p+name, p+name+"\n")
		}
		run(t, a, "update-ref", p+"iter-2-start", p+"iter-1") // the same commit twice
	}
	if err := ShareCheckpoints(ctx, a, "origin", r1, r2); err != nil {
		t.Fatal(err)
	}
	if got := run(t, remote, "for-each-ref", "--format=%(refname)", "refs/agentloop/"); got != r1+journalRef+"\n"+r2+journalRef {
		t.Fatalf("the remote holds\n%s\nwant one journal per run", got)
	}
	if n := len(strings.Fields(run(t, remote, "log", "-1", "--format=%P", r1+journalRef))); n != 3 {
		t.Errorf("the journal of r1 has %d parents, want its 3 distinct checkpoints", n)
	}
	journal := run(t, remote, "rev-parse", r1+journalRef)
	if got, want := run(t, remote, "rev-parse", journal+"^{tree}"), run(t, remote, "rev-parse", journal+"^1^{tree}"); got != want {
		t.Errorf("the journal's tree is %s, want its first parent's %s", got, want)
	}
	refs := func(dir, prefix string) string {
		return run(t, dir, "for-each-ref", "--format=%(objectname) %(refname)", prefix)
	}
	fetchSame := func(when string) {
		t.Helper()
		if err := FetchCheckpoints(ctx, b, "origin", r1); err != nil {
			t.Fatal(err)
		}
		if got, want := refs(b, r1), refs(a, r1); got != want {
			t.Errorf("%s: clone b has\n%s\nwant as clone a\n%s", when, got, want)
		}
		if got := refs(b, "refs/agentloop/"); strings.Contains(got, journalRef) || strings.Contains(got, r2) {
			t.Errorf("%s: clone b has a journal ref or another run's refs:\n%s", when, got)
		}
	}
	fetchSame("first fetch")

	if err := ShareCheckpoints(ctx, a, "origin", r1); err != nil {
		t.Fatal(err)
	}
	if got := run(t, remote, "rev-parse", r1+journalRef); got != journal {
		t.Errorf("the same checkpoints shared again made another journal %s, was %s", got, journal)
	}
	again := checkpoint(t, a, r1+"iter-2", "retried\n")
	if err := ShareCheckpoints(ctx, a, "origin", r1); err != nil {
		t.Fatal(err)
	}
	fetchSame("after a checkpoint taken again")
	if got := run(t, b, "rev-parse", r1+"iter-2"); got != again.Commit {
		t.Errorf("clone b has iter-2 at %s, want the retried %s", got, again.Commit)
	}
	if err := ShareCheckpoints(ctx, a, "origin", "refs/agentloop/build/none/"); err != nil {
		t.Errorf("a run with no checkpoint: %v", err)
	}
}

// TestFetchLegacyCheckpoints: the refs an earlier worker pushed under the
// run's folder, one per checkpoint, are fetched, and a journal pushed after
// them moves those it lists.
func TestFetchLegacyCheckpoints(t *testing.T) {
	ctx := t.Context()
	a, b := sharedClones(t)
	const p = "refs/agentloop/build/r1/"
	for _, name := range []string{"iter-1", "iter-2"} {
		checkpoint(t, a, p+name, name+"\n")
	}
	run(t, a, "push", "-q", "origin", "+"+p+"*:"+p+"*")
	if err := FetchCheckpoints(ctx, b, "origin", p); err != nil {
		t.Fatal(err)
	}
	want := run(t, a, "for-each-ref", "--format=%(objectname) %(refname)", p)
	if got := run(t, b, "for-each-ref", "--format=%(objectname) %(refname)", p); got != want {
		t.Fatalf("clone b has\n%s\nwant the legacy refs\n%s", got, want)
	}
	again := checkpoint(t, a, p+"iter-2", "again\n")
	shareAndFetch(t, a, b, p)
	if got := run(t, b, "rev-parse", p+"iter-2"); got != again.Commit {
		t.Errorf("iter-2 in clone b is %s, want the journal's %s over the legacy ref", got, again.Commit)
	}
}

// TestFetchMalformedJournal: a journal on the remote that is not one is
// refused with an error naming the remote, the ref and what is wrong, sets
// no ref and leaves no journal ref in the clone.
func TestFetchMalformedJournal(t *testing.T) {
	ctx := t.Context()
	a, b := sharedClones(t)
	const p = "refs/agentloop/build/r1/"
	c1, c2 := run(t, a, "rev-parse", "HEAD"), checkpoint(t, a, "refs/agentloop/other/x/iter-1", "two\n").Commit
	tree := run(t, a, "mktree")
	for _, tc := range []struct{ name, raw, want string }{
		{"garbage", "tree " + tree + "\nparent " + c1 + "\nauthor a <a> 1 +0000\ncommitter a <a> 1 +0000\n\nhello world\n", "title"},
		{"bad line", string(journalCommit(tree, p, "1 +0000", []journalEntry{{c1, p + "iter-1"}})) + "nonsense\n", "is not \"COMMIT REF\""},
		{"not a parent", strings.Replace(string(journalCommit(tree, p, "1 +0000", []journalEntry{{c1, p + "iter-1"}})), c1+" "+p, c2+" "+p, 1), "not one of the journal's parents"},
		{"outside the prefix", string(journalCommit(tree, p, "1 +0000", []journalEntry{{c1, "refs/heads/main"}})), "not a checkpoint ref under"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal")
			write(t, filepath.Dir(path), map[string]string{"journal": tc.raw})
			oid := run(t, a, "hash-object", "-t", "commit", "-w", path)
			run(t, a, "push", "-q", "origin", "+"+oid+":"+p+journalRef)
			before := run(t, b, "for-each-ref", "--format=%(objectname) %(refname)")
			err := FetchCheckpoints(ctx, b, "origin", p)
			if err == nil {
				t.Fatal("the journal was taken")
			}
			for _, w := range []string{"origin", p + journalRef, tc.want} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q: %v", w, err)
				}
			}
			if got := run(t, b, "for-each-ref", "--format=%(objectname) %(refname)"); got != before {
				t.Errorf("clone b's refs changed:\n%s\nwere\n%s", got, before)
			}
		})
	}
}

// TestShareCheckpointsSHA256: journals work in a repository of SHA-256 IDs.
func TestShareCheckpointsSHA256(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	a, remote, b := filepath.Join(dir, "a"), filepath.Join(dir, "remote.git"), filepath.Join(dir, "b")
	run(t, dir, "init", "-q", "--object-format=sha256", "-b", "main", a)
	run(t, a, "config", "user.name", "Tester")
	run(t, a, "config", "user.email", "tester@example.com")
	write(t, a, map[string]string{"README.md": "x\n"})
	run(t, a, "add", "-A")
	run(t, a, "commit", "-q", "-m", "initial")
	run(t, dir, "init", "-q", "--bare", "--object-format=sha256", remote)
	run(t, a, "remote", "add", "origin", remote)
	run(t, a, "push", "-q", "origin", "main")
	run(t, dir, "clone", "-q", remote, b)
	const p = "refs/agentloop/build/r1/"
	snap := checkpoint(t, a, p+"iter-1", "one\n")
	shareAndFetch(t, a, b, p)
	if got := run(t, b, "for-each-ref", "--format=%(objectname) %(refname)", "refs/agentloop/"); got != snap.Commit+" "+p+"iter-1" {
		t.Errorf("clone b has %q, want iter-1 at %s", got, snap.Commit)
	}
}

// TestParseJournal: a journal reads back as the entries it was made of; a
// journal of another folder, or with a line that is not an entry, does not.
func TestParseJournal(t *testing.T) {
	const p = "refs/agentloop/build/r1/"
	c1, c2 := strings.Repeat("a", 40), strings.Repeat("b", 64)
	entries := []journalEntry{{c1, p + "iter-1"}, {c2, p + "iter-1-start"}, {c1, p + "iter-2-start"}}
	raw := journalCommit(strings.Repeat("0", 40), p, "5 +0000", entries)
	if n := strings.Count(string(raw), "\nparent "); n != 2 {
		t.Errorf("%d parents, want the 2 distinct commits:\n%s", n, raw)
	}
	got, err := parseJournal(raw, p)
	if err != nil || !slices.Equal(got, entries) {
		t.Errorf("parseJournal = %v, %v; want %v", got, err, entries)
	}
	if got, err := parseJournal(journalCommit("t", p, "5 +0000", nil), p); err != nil || len(got) != 0 {
		t.Errorf("an empty journal: %v, %v", got, err)
	}
	for name, bad := range map[string]string{
		"another folder": strings.Replace(string(raw), "checkpoints "+p, "checkpoints refs/agentloop/build/r2/", 1),
		"no message":     "tree x\nparent " + c1,
		"no tree":        strings.TrimPrefix(string(raw), "tree "),
		"short commit":   strings.Replace(string(raw), "\n"+c1+" ", "\naaaa ", 1),
		"twice":          string(raw) + c1 + " " + p + "iter-1\n",
		"the journal":    string(raw) + c1 + " " + p + journalRef + "\n",
		"bad ref name":   string(raw) + c1 + " " + p + "a..b\n",
		"bad parent":     strings.Replace(string(raw), "parent "+c1, "parent xyz", 1),
	} {
		if _, err := parseJournal([]byte(bad), p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzParseJournal: no input panics the parser, and what it accepts lists
// only valid refs under the folder at commits among the parents.
func FuzzParseJournal(f *testing.F) {
	const p = "refs/agentloop/build/r1/"
	c := strings.Repeat("c", 40)
	f.Add(journalCommit(strings.Repeat("0", 40), p, "5 +0000", []journalEntry{{c, p + "iter-1"}}))
	f.Add([]byte("tree x\n\nagentloop checkpoints " + p + "\n\n" + c + " " + p + "iter-1\n"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		entries, err := parseJournal(raw, p)
		if err != nil {
			return
		}
		head, _, _ := strings.Cut(string(raw), "\n\n")
		for _, e := range entries {
			if !strings.HasPrefix(e.ref, p) || !validRefName(e.ref) || !strings.Contains(head, "\nparent "+e.commit) {
				t.Errorf("accepted %+v from %q", e, raw)
			}
		}
	})
}

// checkpoint writes content to work.txt in the clone at dir and takes a
// checkpoint of it at ref.
func checkpoint(t *testing.T, dir, ref, content string) Checkpoint {
	t.Helper()
	write(t, dir, map[string]string{"work.txt": content})
	c, err := Snapshot(t.Context(), dir, ref, ref)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// shareAndFetch shares the checkpoints under prefix from clone a and
// fetches them into clone b.
func shareAndFetch(t *testing.T, a, b, prefix string) {
	t.Helper()
	if err := ShareCheckpoints(t.Context(), a, "origin", prefix); err != nil {
		t.Fatal(err)
	}
	if err := FetchCheckpoints(t.Context(), b, "origin", prefix); err != nil {
		t.Fatal(err)
	}
}
