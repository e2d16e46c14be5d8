package inbox

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/tasks"
)

var t0 = time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)

func TestWrite(t *testing.T) {
	t.Parallel()
	u := graph.Unfinished{ID: "api", State: tasks.StateEscalated, Issue: tasks.MergeConflict,
		Reason: "merging branch agentloop/plan/api conflicts in a.go, b.go: resolve by hand, then resume",
		Next:   "merge main into its worktree, resolve the conflict and commit there, then: agentloop run --tasks plan.yaml --engine temporal"}
	items := []decision.Waiting{{Since: t0.Add(-3 * time.Hour), Engine: "temporal", NeedsYou: graph.Unmerged("plan", u, graph.Commands{TaskFile: "plan.yaml", Engine: "--engine temporal"})}}
	items[0].Report = "/repo/.agentloop/runs/x/escalation-001.md"
	var b bytes.Buffer
	if err := Write(&b, items, t0, "/repo"); err != nil {
		t.Fatal(err)
	}
	want := `1 loop needs you:

plan-api (task api of plan) — not merged, 3h ago, on Temporal
  merging branch agentloop/plan/api conflicts in a.go, b.go: resolve by hand, then resume
  Question: The branch of task api conflicts with the work merged before it. Resolve it?
  1) merge main into its worktree, resolve the conflict and commit there, then: agentloop run --tasks plan.yaml --engine temporal
     agentloop run --tasks plan.yaml --engine temporal
  Report: .agentloop/runs/x/escalation-001.md
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Write() mismatch (-want +got):\n%s", diff)
	}
	u.Issue = tasks.MergeGates
	if rec := graph.Unmerged("plan", u, graph.Commands{TaskFile: "plan.yaml"}); rec.Options[0].Command != `agentloop resume plan-api --guidance "..."` || rec.Kind != decision.NeedsMerge {
		t.Errorf("gates failing on the merged result: %+v", rec)
	}
}
