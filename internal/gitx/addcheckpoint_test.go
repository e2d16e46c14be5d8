package gitx

import (
	"testing"
)

// TestAddCheckpoint: a commit made outside a run, added to the run's
// checkpoint folder, is only a local ref while the remote holds none of the
// folder; once it does (another clone shared the run's checkpoints), it is
// shared with them, the other clone's checkpoints kept in the remote's
// journal, and a third clone fetches both. Refs that are not a checkpoint's
// are refused.
func TestAddCheckpoint(t *testing.T) {
	ctx := t.Context()
	a, b := sharedClones(t)
	const prefix = "refs/agentloop/issue-1/r1/"
	merge := run(t, b, "rev-parse", "HEAD")

	shared, err := AddCheckpoint(ctx, b, "origin", prefix+"merge-1", merge)
	if err != nil || shared {
		t.Fatalf("no checkpoint of the run on the remote: shared %v, %v; want a local ref only", shared, err)
	}
	if got := run(t, b, "rev-parse", prefix+"merge-1"); got != merge {
		t.Errorf("the local ref: %s, want %s", got, merge)
	}
	if refs, _ := RemoteRefs(ctx, b, "origin", prefix); len(refs) != 0 {
		t.Errorf("the remote got %v", refs)
	}

	write(t, a, map[string]string{"work.txt": "one\n"})
	first, err := Snapshot(ctx, a, prefix+"iter-1", "iteration 1")
	if err != nil {
		t.Fatal(err)
	}
	if err := ShareCheckpoints(ctx, a, "origin", prefix); err != nil {
		t.Fatal(err)
	}
	if shared, err = AddCheckpoint(ctx, b, "origin", prefix+"merge-2", merge); err != nil || !shared {
		t.Fatalf("the remote holds the run's checkpoints: shared %v, %v; want shared", shared, err)
	}
	c := t.TempDir()
	run(t, c, "init", "-q")
	run(t, c, "remote", "add", "origin", run(t, a, "remote", "get-url", "origin"))
	if err := FetchCheckpoints(ctx, c, "origin", prefix); err != nil {
		t.Fatal(err)
	}
	if got := run(t, c, "rev-parse", prefix+"iter-1"); got != first.Commit {
		t.Errorf("another clone's checkpoint after the add: %s, want %s", got, first.Commit)
	}
	if got := run(t, c, "rev-parse", prefix+"merge-2"); got != merge {
		t.Errorf("the added checkpoint fetched: %s, want %s", got, merge)
	}

	for _, bad := range []string{"refs/heads/main", "refs/agentloop/issue-1/r1/journal", "refs/agentloop/issue-1/r1/", "refs/agentloop/x y/merge"} {
		if _, err := AddCheckpoint(ctx, b, "origin", bad, merge); err == nil {
			t.Errorf("AddCheckpoint(%q) accepted", bad)
		}
	}
	if _, err := AddCheckpoint(ctx, b, "origin", prefix+"merge-3", "HEAD"); err == nil {
		t.Errorf("a commit that is not an object name accepted")
	}
}
