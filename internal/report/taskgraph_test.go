package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/tasks"
)

func TestTaskRows(t *testing.T) {
	t.Parallel()
	ts := []tasks.Task{
		{ID: "a", Title: "a", Pos: tasks.Pos{File: "t", Line: 1}},
		{ID: "b", Title: "b", DependsOn: []string{"a"}, Pos: tasks.Pos{File: "t", Line: 2}},
		{ID: "c", Prompt: "Fix lint\nall of it", Pos: tasks.Pos{File: "t", Line: 3}},
	}
	g, err := tasks.NewGraph(ts)
	if err != nil {
		t.Fatal(err)
	}
	rows := taskRows(g, map[string]tasks.Outcome{"a": {State: tasks.StateSucceeded, Iterations: 2}}, map[string]bool{"b": true})
	var got [][]string
	for _, r := range rows {
		got = append(got, []string{r.ID, r.Title, r.State})
	}
	want := [][]string{{"a", "a", "succeeded"}, {"b", "b", "running"}, {"c", "Fix lint", "pending"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
