package tasks

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRows(t *testing.T) {
	t.Parallel()
	ts := tasksOf("a", "b:a", "c")
	ts[2].Title, ts[2].Prompt = "", "Fix lint\nall of it"
	g := mustGraph(t, ts)
	rows := Rows(g, map[string]Outcome{"a": {State: StateSucceeded, Iterations: 2}}, map[string]bool{"b": true})
	var got [][]string
	for _, r := range rows {
		got = append(got, []string{r.ID, r.Title, r.State})
	}
	want := [][]string{{"a", "a", "succeeded"}, {"b", "b", "running"}, {"c", "Fix lint", "pending"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
