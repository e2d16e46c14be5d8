package tasks

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestApplyMerges(t *testing.T) {
	t.Parallel()
	out := map[string]Outcome{"a": {State: StateSucceeded, Seq: 2}, "b": {State: StateSucceeded, Seq: 1}, "c": {State: StateCompleted, Seq: 3}}
	if diff := cmp.Diff([]string{"b", "a", "c"}, CompletionOrder(out)); diff != "" {
		t.Errorf("completion order (-want +got):\n%s", diff)
	}
	rs := []MergeResult{{ID: "b", Branch: "agentloop/b", Conflict: true, Files: []string{"api/users.go"}},
		{ID: "a", Branch: "agentloop/a", Merged: true}, {ID: "c", Branch: "agentloop/c", Merged: true}}
	ApplyMerges(out, rs)
	if o := out["b"]; o.State != StateEscalated || o.Unmerged != MergeConflict || !strings.Contains(o.Reason, "api/users.go") {
		t.Errorf("conflicted task: %+v", o)
	}
	if o := out["a"]; o.State != StateSucceeded || o.Unmerged != "" {
		t.Errorf("merged task: %+v", o)
	}
	if diff := cmp.Diff([]string{"a", "c"}, CompletionOrder(out)); diff != "" {
		t.Errorf("order after conflict (-want +got):\n%s", diff)
	}
	// A resumed graph merges only what an earlier run did not.
	if diff := cmp.Diff([]string{"c"}, MergeOrder(out, []string{"a", "x"})); diff != "" {
		t.Errorf("merge order with a merged (-want +got):\n%s", diff)
	}
}
