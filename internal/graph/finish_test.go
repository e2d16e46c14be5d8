package graph

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

func TestListUnfinished(t *testing.T) {
	t.Parallel()
	ts := []tasks.Task{{ID: "done"}, {ID: "ticked", Done: true}, {ID: "esc"}, {ID: "gates"}, {ID: "conflict"}, {ID: "refused"},
		{ID: "blocked"}, {ID: "failed"}, {ID: "skipped"}, {ID: "unmerged"}, {ID: "never"}}
	out := map[string]tasks.Outcome{
		"done":     {State: tasks.StateSucceeded},
		"esc":      {State: tasks.StateEscalated, Reason: "stuck"},
		"gates":    {State: tasks.StateEscalated, Unmerged: tasks.MergeGates},
		"conflict": {State: tasks.StateEscalated, Unmerged: tasks.MergeConflict},
		"refused":  {State: tasks.StateEscalated, Unmerged: tasks.MergeRefused},
		"blocked":  {State: tasks.StateBlocked},
		"failed":   {State: tasks.StateFailed},
		"skipped":  {State: tasks.StateSkipped},
		"unmerged": {State: tasks.StateCompleted},
	}
	c := Commands{TaskFile: "my tasks.yaml", Engine: "--engine temporal", Into: "main"}
	got := map[string]string{}
	var order []string
	for _, u := range ListUnfinished("g", ts, out, []string{"done"}, c) {
		got[u.ID] = u.Next
		order = append(order, u.ID)
	}
	if diff := cmp.Diff([]string{"esc", "gates", "conflict", "refused", "blocked", "failed", "skipped", "unmerged", "never"}, order); diff != "" {
		t.Errorf("unfinished tasks (-want +got):\n%s", diff)
	}
	run := "agentloop run --tasks 'my tasks.yaml' --engine temporal"
	for id, want := range map[string]string{
		"esc":      `read its escalation (agentloop report g-esc --engine temporal), then: agentloop resume g-esc --guidance "..." --engine temporal`,
		"gates":    `its loop fixes the merged result in its worktree once you answer: agentloop resume g-gates --guidance "..." --engine temporal`,
		"conflict": "merge main into its worktree, resolve the conflict and commit there, then: " + run,
		"refused":  "commit or stash your changes in the repository, then: " + run,
		"blocked":  "it starts once its dependencies are merged: finish them, then: " + run,
		"failed":   "see why with: agentloop report g-failed --engine temporal; then (with a higher limit if one stopped it): " + run,
		"skipped":  "raise the graph's budget in my tasks.yaml, then: " + run,
		"unmerged": "its loop is done; its merge is tried again by: " + run,
		"never":    run,
	} {
		if got[id] != want {
			t.Errorf("next for %s:\n got %s\nwant %s", id, got[id], want)
		}
	}
	if l := ListUnfinished("g", ts, map[string]tasks.Outcome{"done": out["done"], "esc": {State: tasks.StateSucceeded}}, []string{"done", "esc", "gates", "conflict", "refused", "blocked", "failed", "skipped", "unmerged", "never"}, c); len(l) != 0 {
		t.Errorf("a graph with every task merged has unfinished %+v", l)
	}
}

func TestWriteUnfinished(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	WriteUnfinished(&b, nil, nil)
	if b.Len() != 0 {
		t.Errorf("nothing unfinished wrote %q", b.String())
	}
	list := []Unfinished{{ID: "a", State: tasks.StateEscalated, Issue: tasks.MergeRefused, Next: "do it"}, {ID: "b", State: tasks.StateBlocked, Reason: "dependency a escalated", Next: "later"}}
	WriteUnfinished(&b, list, func(id string) string {
		if id == "a" {
			return "worktree w, branch br"
		}
		return ""
	})
	want := "\nNot merged:\n  a (escalated: merge refused): worktree w, branch br\n    then: do it\n  b (blocked): dependency a escalated\n    then: later\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("listing (-want +got):\n%s", diff)
	}
}

func TestGatesPassed(t *testing.T) {
	t.Parallel()
	ok, _, err := GatesPassed([]evidence.GateResult{{Name: "lint", Passed: false}, {Name: "tests", Required: true, Passed: true}})
	if !ok || err != nil {
		t.Errorf("an optional gate failing: %v %v", ok, err)
	}
	failing := []evidence.GateResult{
		{Name: "tests", Command: "go test ./...", Required: true, ExitCode: 1, Findings: []evidence.Finding{
			{ID: "TestA", File: "a_test.go", Line: 3}, {ID: "TestB"}, {ID: "TestC"}, {ID: "TestD"}}},
		{Name: "build", Command: "make", Required: true, ExitCode: 2, Findings: []evidence.Finding{
			{Kind: evidence.KindGate, ID: "build", Message: "exit 2 with no parsable failure"}}},
		{Name: "vet", Command: "go vet", Required: true, ExitCode: 1, Tail: "x\nlast line\n"},
	}
	ok, summary, err := GatesPassed(failing)
	want := "tests (go test ./...) fails: TestA (a_test.go:3), TestB, TestC, and 1 more; build (make) fails: exit 2 with no parsable failure; vet (go vet) fails with exit code 1: last line"
	if ok || err != nil || summary != want {
		t.Errorf("GatesPassed = %v, %q, %v\nwant %q", ok, summary, err, want)
	}
	if _, _, err := GatesPassed([]evidence.GateResult{{Name: "tests", Command: "gotest", Required: true, Infra: true, InfraReason: "timed out"}}); err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("a gate that could not run: %v", err)
	}
}

func TestHold(t *testing.T) {
	t.Parallel()
	c := Commands{TaskFile: "tasks.yaml"}
	best := &state.Checkpoint{Ref: "refs/x"}
	gates := tasks.Outcome{State: tasks.StateEscalated, Unmerged: tasks.MergeGates, Reason: "its gates fail"}

	st := &state.State{Name: "g-a", Status: state.StatusSucceeded, Best: best}
	if err := Hold(st, gates, c, false); !errors.Is(err, ErrGuidanceNeeded) || !strings.Contains(err.Error(), `agentloop resume g-a --guidance "..."`) {
		t.Errorf("held for its gates, without guidance: %v", err)
	}
	if err := Hold(st, gates, c, true); err != nil || st.Status != state.StatusEscalated || st.Best != nil || st.Feedback != "its gates fail" || st.Reason != "its gates fail" {
		t.Errorf("held for its gates, with guidance: %v, %+v", err, st)
	}
	// Its loop done again since (resumed with guidance, then killed before
	// its graph merged it): the graph's run tries the merge.
	since := &state.State{Name: "g-a", Status: state.StatusSucceeded, TotalIterations: 3}
	once := gates
	once.Iterations = 2
	if err := Hold(since, once, c, true); !errors.As(err, new(*HeldError)) || !strings.Contains(err.Error(), "agentloop run --tasks tasks.yaml") || since.Status != state.StatusSucceeded {
		t.Errorf("held for its gates, its loop done again since: %v", err)
	} else if he, _ := errors.AsType[*HeldError](err); !he.Retry {
		t.Errorf("held for its gates, its loop done again since: %v; want it marked for its graph to retry (resume goes on with the graph)", err)
	}
	// Resumed already (it runs or escalated again): its own rules apply.
	again := &state.State{Name: "g-a", Status: state.StatusInterrupted, Best: best}
	if err := Hold(again, gates, c, false); err != nil || again.Best != best {
		t.Errorf("a held task resumed since: %v, %+v", err, again)
	}
	for _, issue := range []tasks.MergeIssue{tasks.MergeConflict, tasks.MergeRefused} {
		st := &state.State{Name: "g-a", Status: state.StatusSucceeded}
		err := Hold(st, tasks.Outcome{State: tasks.StateEscalated, Unmerged: issue, Reason: "why"}, c, true)
		var he *HeldError
		if !errors.As(err, &he) || he.Why != "why" || !strings.Contains(err.Error(), "agentloop run --tasks tasks.yaml") || st.Status != state.StatusSucceeded {
			t.Errorf("held for a %s merge: %v", issue, err)
		}
	}
	plain := &state.State{Name: "g-a", Status: state.StatusEscalated, Best: best}
	if err := Hold(plain, tasks.Outcome{State: tasks.StateEscalated}, c, true); err != nil || plain.Best != best {
		t.Errorf("a task its loop escalated: %v", err)
	}
}

func TestAwaitsGuidance(t *testing.T) {
	t.Parallel()
	gates := tasks.Outcome{State: tasks.StateEscalated, Unmerged: tasks.MergeGates, Iterations: 2}
	tests := []struct {
		name   string
		status state.Status
		iters  int
		o      tasks.Outcome
		want   bool
	}{
		{"its gates failed on the merged result", state.StatusSucceeded, 2, gates, true},
		{"completed, then its gates failed", state.StatusCompleted, 2, gates, true},
		{"done again since, with guidance", state.StatusSucceeded, 3, gates, false},
		{"resumed since and running", state.StatusRunning, 2, gates, false},
		{"escalated again since", state.StatusEscalated, 3, gates, false},
		{"a merge conflict", state.StatusSucceeded, 2, tasks.Outcome{State: tasks.StateEscalated, Unmerged: tasks.MergeConflict, Iterations: 2}, false},
		{"a merge refused", state.StatusSucceeded, 2, tasks.Outcome{State: tasks.StateEscalated, Unmerged: tasks.MergeRefused, Iterations: 2}, false},
		{"its loop escalated", state.StatusEscalated, 2, tasks.Outcome{State: tasks.StateEscalated, Iterations: 2}, false},
		{"merged", state.StatusSucceeded, 2, tasks.Outcome{State: tasks.StateSucceeded, Iterations: 2}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := AwaitsGuidance(&state.State{Status: tt.status, TotalIterations: tt.iters}, tt.o); got != tt.want {
				t.Errorf("AwaitsGuidance = %v, want %v", got, tt.want)
			}
		})
	}
}
