package graph

import "testing"

func TestName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"tasks.yaml": "tasks", "docs/PLAN.md": "PLAN", "my plan (v2).md": "my-plan-v2", "...md": "tasks",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}
