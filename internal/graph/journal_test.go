package graph

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/tasks"
)

func TestJournal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := NewState("tasks.yaml")
	st.Outcomes["a"] = tasks.Outcome{State: tasks.StateSucceeded, Seq: 1}
	st.Merged = []string{"a"}
	if err := SaveState(dir, "g", st); err != nil {
		t.Fatal(err)
	}
	j, err := OpenJournal(dir, "g")
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		j.Outcome("b", tasks.Outcome{State: tasks.StateSucceeded, Seq: 2}), j.Merged("b"),
		j.Outcome("c", tasks.Outcome{State: tasks.StateEscalated, Unmerged: tasks.MergeGates}), j.Merged("a"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	// A line cut by a crash, and what a later append would have added.
	f, err := os.OpenFile(JournalPath(dir, "g"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"task":"d","outcome":{"state":"succ` + "\n" + `{"task":"e","merged":true}` + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, found, err := LoadState(dir, "g", "tasks.yaml", time.Now())
	if err != nil || !found {
		t.Fatalf("load: %v, found %v", err, found)
	}
	if !slices.Equal(got.Merged, []string{"a", "b"}) {
		t.Errorf("merged %v, want a (the state's) and b (the journal's), once each, nothing after the cut line", got.Merged)
	}
	if got.Outcomes["b"].Seq != 2 || got.Outcomes["c"].Unmerged != tasks.MergeGates || len(got.Outcomes) != 3 {
		t.Errorf("outcomes %+v", got.Outcomes)
	}
	// A whole save holds the journal's changes and starts it afresh.
	if err := SaveState(dir, "g", got); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(JournalPath(dir, "g")); !os.IsNotExist(err) {
		t.Errorf("the journal is still there after a whole save: %v", err)
	}
	again, _, err := LoadState(dir, "g", "tasks.yaml", time.Now())
	if err != nil || !slices.Equal(again.Merged, got.Merged) || len(again.Outcomes) != 3 {
		t.Errorf("after the save: %+v, %v", again, err)
	}
	// A graph whose state file was never written but whose journal was.
	j2, err := OpenJournal(dir, "h")
	if err != nil {
		t.Fatal(err)
	}
	if err := j2.Outcome("x", tasks.Outcome{State: tasks.StateFailed}); err != nil {
		t.Fatal(err)
	}
	j2.Close()
	if h, found, err := LoadState(dir, "h", "h.yaml", time.Now()); err != nil || !found || h.Outcomes["x"].State != tasks.StateFailed {
		t.Errorf("a journal alone: %+v, %v, %v", h, found, err)
	}
}
