package report

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name.golden, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

var t0 = time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)

func usage(in, out int64, cost float64) evidence.Usage {
	return evidence.Usage{InputTokens: in, OutputTokens: out, CacheReadTokens: in * 3, TokensKnown: true, CostUSD: cost, CostKnown: true, Model: "claude-sonnet-4-5"}
}

func gates(tests, lint bool, testFails int, infraLint bool) []state.GateSummary {
	g := []state.GateSummary{
		{Name: "tests", Required: true, Passed: tests, ExitCode: map[bool]int{true: 0, false: 1}[tests], Failures: testFails},
		{Name: "lint", Required: false, Passed: lint, ExitCode: map[bool]int{true: 0, false: 1}[lint]},
	}
	if infraLint {
		g[1].Infra, g[1].ExitCode, g[1].Passed = true, -1, false
	}
	return g
}

// sampleRun is a realistic escalated run: four iterations over two sessions, the
// failing count going down then stuck, a reviewer, and an escalation report.
func sampleRun() Run {
	h := []state.Record{
		{N: 1, Attempt: 1, StartedAt: t0.Add(5 * time.Second), Duration: 45200, AgentExit: 0, Usage: usage(12000, 3400, 0.41),
			Gates: gates(false, true, 4, false), Failing: []string{"go:textkit.TestSlug", "go:textkit.TestTitle", "go:textkit.TestTrim", "go:textkit.TestWrap"},
			Quality: 0.35, Decision: "refine", Strategy: "refine", Triggers: []string{"validation_failure"}, Summary: "implemented Slug and Title"},
		{N: 2, Attempt: 1, StartedAt: t0.Add(55 * time.Second), Duration: 61800, AgentExit: 0, Usage: usage(15500, 4100, 0.52),
			Gates: gates(false, false, 2, false), Failing: []string{"go:textkit.TestTrim", "go:textkit.TestWrap"},
			Review: "request_changes", ReviewScore: 6, Quality: 0.62, Decision: "refine", Strategy: "refine",
			Triggers: []string{"validation_failure", "explicit_feedback"}, Summary: "fixed Slug | Title edge cases"},
		{N: 3, Attempt: 1, StartedAt: t0.Add(10 * time.Minute), Duration: 38000, AgentExit: 1, AgentReason: "exit status 1",
			Usage: evidence.Usage{CostUSD: 0.30, CostKnown: true, CostEstimated: true},
			Gates: gates(false, false, 2, true), Failing: []string{"go:textkit.TestTrim", "go:textkit.TestWrap"},
			Quality: 0.60, Decision: "simplify", Strategy: "simplify", Triggers: []string{"stuck", "validation_failure"}},
		{N: 4, Attempt: 2, StartedAt: t0.Add(11 * time.Minute), Duration: 52500, AgentExit: 0, Usage: usage(9800, 2900, 0.37),
			Gates: gates(false, true, 2, false), Failing: []string{"go:textkit.TestTrim", "go:textkit.TestWrap"},
			Review: "request_changes", ReviewScore: 5, Quality: 0.61, Decision: "escalate", Strategy: "escalate",
			Triggers: []string{"stuck", "plateau"}, Summary: "rewrote Wrap from scratch"},
	}
	st := &state.State{
		Version: 1, Name: "build", RunID: "20260314-100000-a1b2", Procedure: "build",
		Status: state.StatusEscalated, Reason: "stuck: the same 2 tests fail after a fresh attempt",
		Iteration: 4, TotalIterations: 4, MaxIterations: 6, ConsecutiveFailures: 4, FailureThreshold: 5,
		StartedAt: t0, LastIterationAt: t0.Add(11*time.Minute + 52500*time.Millisecond),
		Spend: state.Spend{
			Usage: evidence.Usage{InputTokens: 37300, OutputTokens: 10400, CacheReadTokens: 111900, TokensKnown: true, CostUSD: 1.60, CostKnown: true, CostEstimated: true},
			Wall:  197500, Waited: 12000,
			Reviewer: evidence.Usage{InputTokens: 8000, OutputTokens: 900, TokensKnown: true, CostUSD: 0.11, CostKnown: true},
		},
		Sessions: []state.Session{
			{StartedAt: t0, EndedAt: t0.Add(2 * time.Minute), Iterations: 2, Status: state.StatusInterrupted, Reason: "SIGINT"},
			{StartedAt: t0.Add(10 * time.Minute), EndedAt: t0.Add(12 * time.Minute), Iterations: 2, Status: state.StatusEscalated, Reason: "stuck"},
		},
		History: h, BaselineDone: true, Baseline: baselineGates(),
		Best: &state.Checkpoint{Iteration: 2, Ref: "refs/agentloop/build/20260314-100000-a1b2/iter-2", Quality: 0.62},
	}
	events := []state.Event{
		{Time: t0, Data: state.RunStarted{Procedure: "build", MaxIterations: 6}},
		{Time: t0.Add(5 * time.Second), Iteration: 1, Data: state.IterationStarted{MaxIterations: 6}},
		{Time: t0.Add(50 * time.Second), Iteration: 1, Data: state.IterationFinished{Action: state.ActionRefine}},
		{Time: t0.Add(12 * time.Minute), Iteration: 4, Data: state.Escalated{Reason: "stuck"}},
	}
	esc := "# Escalation\n\n**Reason:** stuck: the same 2 tests fail after a fresh attempt\n\n" +
		"## Question\n\nShould `Wrap` count runes or display cells?\n\n## Options\n\n" +
		"1. Runes — simple, wrong for CJK text\n2. Display cells — right, needs golang.org/x/text\n\n" +
		"## Recommendation\n\nOption 2, with a **new dependency** approved by you.\n\n```\n--- FAIL: TestWrap\n    want \"ab\\ncd\"\n```\n"
	return Run{State: st, Events: events, Escalation: esc}
}

// baselineGates are the gates on the code before the agent: five tests fail.
func baselineGates() []evidence.GateResult {
	tests := evidence.GateResult{Name: "tests", Required: true, ExitCode: 1, Tests: evidence.TestCounts{Passed: 1, Failed: 5}}
	for _, name := range []string{"TestSlug", "TestTitle", "TestTrim", "TestWrap", "TestPad"} {
		tests.Findings = append(tests.Findings, evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "textkit." + name, Message: "FAIL", Key: "go:textkit." + name})
	}
	return []evidence.GateResult{tests, {Name: "lint", Passed: true}}
}

// longRun is a run still in progress with many iterations, three gates, usage the
// CLI did not report, and a wide task graph.
func longRun() Run {
	st := &state.State{Version: 1, Name: "refactor-storage", RunID: "20260314-120000-ffee", Procedure: "build",
		Status: state.StatusRunning, Iteration: 30, TotalIterations: 30, MaxIterations: 0, FailureThreshold: 3,
		StartedAt: t0, LastIterationAt: t0.Add(2 * time.Hour), Spend: state.Spend{Wall: 7200000}}
	for i := 1; i <= 30; i++ {
		q := 0.2 + 0.7*float64(i)/30
		fails := (30 - i) / 3
		rec := state.Record{N: i, Duration: state.Millis(20000 + (i*7919)%90000), Quality: q,
			Gates:    []state.GateSummary{{Name: "unit", Required: true, Passed: fails == 0}, {Name: "vet", Required: true, Passed: i%4 != 0}, {Name: "e2e", Passed: i%5 != 0, Infra: i%7 == 0}},
			Decision: "refine", Strategy: "refine", Triggers: []string{"validation_failure"}}
		for f := range fails {
			rec.Failing = append(rec.Failing, fmt.Sprintf("go:storage.Test%d", f))
		}
		st.History = append(st.History, rec)
	}
	var ts []TaskRow
	states := []string{"succeeded", "succeeded", "running", "failed", "pending", "blocked", "escalated", "completed", "skipped", "interrupted"}
	for i := range 14 {
		t := TaskRow{ID: fmt.Sprintf("task-%02d", i), Title: fmt.Sprintf("Step %d of the storage refactor with a long title", i), State: states[i%len(states)]}
		if i >= 3 {
			t.DependsOn = []string{fmt.Sprintf("task-%02d", i-3)}
			if i%2 == 0 {
				t.DependsOn = append(t.DependsOn, fmt.Sprintf("task-%02d", i-1))
			}
		}
		ts = append(ts, t)
	}
	return Run{State: st, Tasks: ts}
}

// segmentedRun is a run of three segments, each started by a person: the
// start, then two guidances (the second of two lines); attempt 4 is cut short
// by a Ctrl-C and the run resumed; every segment escalates, and the person
// accepts the best checkpoint at the end.
func segmentedRun() Run {
	const id = "20260314-100000-c3d4"
	ref := func(seq int) string { return fmt.Sprintf("refs/agentloop/build/%s/iter-%d", id, seq) }
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	rec := func(seq, seg, n, m int, failing int, q float64, decision, summary string) state.Record {
		r := state.Record{N: n, Seq: seq, Segment: seg, Attempt: 1, StartedAt: at(m), Duration: state.Millis(30000 + seq*4000),
			Usage: usage(int64(8000+seq*500), int64(2000+seq*100), 0.2+float64(seq)/20), Gates: gates(failing == 0, true, failing, false),
			Quality: q, Decision: decision, Strategy: decision, Summary: summary, Checkpoint: ref(seq)}
		for f := range failing {
			r.Failing = append(r.Failing, fmt.Sprintf("go:textkit.TestCase%d", f))
		}
		if failing > 0 {
			r.Triggers = []string{"validation_failure"}
		}
		return r
	}
	by := "dev@laptop"
	st := &state.State{
		Version: state.StateVersion, Name: "build", RunID: id, Procedure: "build",
		Status: state.StatusCompleted, Reason: "you accepted the best checkpoint (iteration 1 (attempt 6), 6f1e2d3c4b5a)",
		Iteration: 2, TotalIterations: 6, Attempts: 7, Segment: 3, MaxIterations: 2, FailureThreshold: 3,
		StartedAt: t0, LastIterationAt: at(71),
		Spend: state.Spend{Usage: usage(60000, 15000, 2.35), Wall: 312000},
		Sessions: []state.Session{
			{StartedAt: at(0), EndedAt: at(3), Iterations: 2, Status: state.StatusEscalated, Reason: "max iterations reached"},
			{StartedAt: at(20), EndedAt: at(23), Iterations: 1, Status: state.StatusInterrupted, Reason: "interrupted"},
			{StartedAt: at(30), EndedAt: at(32), Iterations: 1, Status: state.StatusEscalated, Reason: "max iterations reached"},
			{StartedAt: at(60), EndedAt: at(72), Iterations: 2, Status: state.StatusEscalated, Reason: "stuck"},
			{StartedAt: at(80), EndedAt: at(80), Status: state.StatusCompleted, Reason: "accepted"},
		},
		History: []state.Record{
			rec(1, 1, 1, 1, 3, 0.40, "refine", "read the code, changed nothing"),
			rec(2, 1, 2, 2, 3, 0.40, "escalate", "looked around"),
			rec(3, 2, 1, 21, 2, 0.60, "refine", "read the README, fixed TestCase2"),
			rec(5, 2, 2, 31, 2, 0.60, "escalate", "no change"),
			rec(6, 3, 1, 61, 1, 0.85, "refine", "created fixed.txt"),
			rec(7, 3, 2, 70, 1, 0.80, "escalate", "tried another layout"),
		},
		Interrupted: []state.Interrupted{{Seq: 4, Segment: 2, Iteration: 2, StartedAt: at(22), Duration: 12400, Usage: usage(3000, 500, 0.07),
			Start: ref(3), Cut: ref(4) + "-cut", Reason: "interrupted"}},
		Handoffs: []state.Handoff{
			{Kind: state.HandoffStart, At: at(0), By: by, Segment: 1},
			{Kind: state.HandoffGuidance, At: at(19), By: by, After: 2, Segment: 2, Text: "first answer: look at the README", Checkpoint: ref(2)},
			{Kind: state.HandoffResume, At: at(30), By: by, After: 4, Segment: 2},
			{Kind: state.HandoffGuidance, At: at(59), By: by, After: 5, Segment: 3, Text: "second answer: create fixed.txt\nand keep the README as it is", Checkpoint: ref(5)},
			{Kind: state.HandoffAccept, At: at(80), By: by, After: 7, Segment: 3, Checkpoint: "6f1e2d3c4b5a69788796a5b4c3d2e1f061728394"},
		},
		Best: &state.Checkpoint{Iteration: 1, Seq: 6, Ref: ref(6), Quality: 0.85},
	}
	runDir := ".agentloop/runs/build/" + id + "/"
	return Run{State: st,
		Events: []state.Event{
			{Time: at(0), Segment: 1, Data: state.RunStarted{Procedure: "build", MaxIterations: 2, Segment: 1}},
			{Time: at(19), Segment: 2, Data: state.HandoffRecorded{Handoff: st.Handoffs[1]}},
		},
		Escalations: []state.EscalationFile{{Segment: 1, Path: runDir + "escalation-001.md"}, {Segment: 2, Path: runDir + "escalation-002.md"},
			{Segment: 3, Path: runDir + "escalation-003.md"}},
		Escalation: "# Escalation: build\n\n**Why the loop stopped:** stuck: TestCase0 fails after a fresh attempt\n\n## Question\n\n**What does the agent miss about TestCase0?**\n",
	}
}
