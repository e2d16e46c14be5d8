package tasks

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMergeBack(t *testing.T) {
	t.Parallel()
	var merged []string
	merge := func(ctx context.Context, dir, branch string) (bool, []string, error) {
		if dir != "/repo" {
			return false, nil, errors.New("wrong repo " + dir)
		}
		merged = append(merged, branch)
		if branch == "agentloop/b" {
			return true, []string{"api/users.go"}, nil
		}
		return false, nil, nil
	}
	out := map[string]Outcome{"a": {State: StateSucceeded, Seq: 2}, "b": {State: StateSucceeded, Seq: 1}, "c": {State: StateCompleted, Seq: 3}}
	branch := func(id string) string { return "agentloop/" + id }
	rs, err := MergeBack(t.Context(), "/repo", CompletionOrder(out), branch, merge)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"agentloop/b", "agentloop/a", "agentloop/c"}, merged); diff != "" {
		t.Errorf("merge order (-want +got):\n%s", diff)
	}
	want := []MergeResult{{ID: "b", Branch: "agentloop/b", Conflict: true, Files: []string{"api/users.go"}},
		{ID: "a", Branch: "agentloop/a", Merged: true}, {ID: "c", Branch: "agentloop/c", Merged: true}}
	if diff := cmp.Diff(want, rs); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	ApplyMerges(out, rs)
	if o := out["b"]; o.State != StateEscalated || !strings.Contains(o.Reason, "api/users.go") {
		t.Errorf("conflicted task: %+v", o)
	}
	if diff := cmp.Diff([]string{"a", "c"}, CompletionOrder(out)); diff != "" {
		t.Errorf("order after conflict (-want +got):\n%s", diff)
	}
	// A resumed graph merges only what an earlier run did not.
	if diff := cmp.Diff([]string{"c"}, MergeOrder(out, []string{"a", "x"})); diff != "" {
		t.Errorf("merge order with a merged (-want +got):\n%s", diff)
	}
}

func TestMergeBackStops(t *testing.T) {
	t.Parallel()
	calls := 0
	fail := func(ctx context.Context, dir, branch string) (bool, []string, error) {
		calls++
		return false, nil, errors.New("dirty work tree")
	}
	rs, err := MergeBack(t.Context(), "/r", []string{"a", "b"}, func(id string) string { return id }, fail)
	if err == nil || len(rs) != 0 || calls != 1 {
		t.Errorf("merge error must stop: results %v, err %v, calls %d", rs, err, calls)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := MergeBack(ctx, "/r", []string{"a"}, func(id string) string { return id }, fail); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled merge-back: %v", err)
	}
}
