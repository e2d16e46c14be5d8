package tasks

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tasksOf builds tasks from "id:dep,dep" specs.
func tasksOf(specs ...string) []Task {
	ts := make([]Task, len(specs))
	for i, s := range specs {
		id, deps, _ := strings.Cut(s, ":")
		ts[i] = Task{ID: id, Title: id, Pos: Pos{File: "t", Line: i + 1}}
		if deps != "" {
			ts[i].DependsOn = strings.Split(deps, ",")
		}
	}
	return ts
}

func TestOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		tasks   []Task
		want    [][]string
		wantErr string
	}{
		{"empty", nil, nil, ""},
		{"independent", tasksOf("a", "b", "c"), [][]string{{"a", "b", "c"}}, ""},
		{"chain", tasksOf("c:b", "b:a", "a"), [][]string{{"a"}, {"b"}, {"c"}}, ""},
		{"diamond", tasksOf("top", "l:top", "r:top", "bottom:l,r", "side"), [][]string{{"top", "side"}, {"l", "r"}, {"bottom"}}, ""},
		{"uneven", tasksOf("a", "b:a", "c:b", "d:a,c"), [][]string{{"a"}, {"b"}, {"c"}, {"d"}}, ""},
		{"unknown dep", tasksOf("a:zz"), nil, `t:1: task a depends on unknown task "zz"`},
		{"cycle", tasksOf("a", "b:c", "c:d", "d:b"), nil, "t:2: dependency cycle: b → c → d → b"},
		{"self", tasksOf("a:a"), nil, "depends on itself"},
		{"duplicate", tasksOf("a", "a"), nil, "used twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Order(tt.tasks)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Order error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Order mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompletionOrder(t *testing.T) {
	t.Parallel()
	out := map[string]Outcome{
		"a": {State: StateSucceeded, Seq: 2}, "b": {State: StateSucceeded, Seq: 1},
		"c": {State: StateFailed}, "d": {State: StateCompleted, Seq: 3}, "e": {State: StateEscalated, Seq: 4},
	}
	if diff := cmp.Diff([]string{"b", "a", "d"}, CompletionOrder(out)); diff != "" {
		t.Errorf("CompletionOrder (-want +got):\n%s", diff)
	}
}
