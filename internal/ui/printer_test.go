package ui

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

func TestPrinterLines(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	p := New(Options{Out: &out, Now: func() time.Time { return now }})
	at := func(sec int) time.Time { return now.Add(time.Duration(sec) * time.Second) }
	events := []state.Event{
		{Time: at(0), Data: state.RunStarted{Procedure: "build", MaxIterations: 3}},
		{Time: at(0), Data: state.BaselineStarted{}},
		{Time: at(0), Data: state.BaselineFinished{Gates: 1, Failures: 2}},
		{Time: at(0), Iteration: 1, Data: state.IterationStarted{MaxIterations: 3}},
		{Time: at(45), Iteration: 1, Data: state.IterationFinished{Duration: 45200, Message: "tests: 2 failures", ConsecutiveFailures: 1, FailureThreshold: 3, Action: state.ActionRefine}},
		{Time: at(45), Iteration: 1, Data: state.Rollback{Checkpoint: "0123456789abcdef0123"}},
		{Time: at(45), Iteration: 2, Data: state.IterationStarted{MaxIterations: 3, Strategy: "refine"}},
		{Time: at(90), Iteration: 2, Data: state.IterationFinished{Duration: 45000, Succeeded: true, Action: state.ActionEscalate, Message: "a security concern", Review: "request_changes", ReviewScore: 4}},
		{Time: at(90), Iteration: 2, Data: state.Escalated{Reason: "a security concern", Question: "Approve?"}},
		{Time: at(90), Iteration: 2, Data: state.GuidanceReceived{}},
		{Time: at(90), Iteration: 2, Data: state.Warning{Message: "state not saved"}},
		{Time: at(90), Data: state.RunFinished{Status: state.StatusSucceeded, Reason: "all required gates passed", Iterations: 2, Wall: 90200}},
		{Time: at(91), Data: state.NeedsYou{}}, // the epilogue says what to do
		{Time: at(91), Data: state.NotificationSent{Notification: "finished", Target: "slack", Attempts: 1}}, // only with -v
		{Time: at(95), Data: state.NotificationFailed{Notification: "finished", Target: "webhook 127.0.0.1:9", Attempts: 3, Error: "HTTP 500"}},
	}
	for _, ev := range events {
		p.Event(ev)
	}
	want := `[10:00:00] Starting procedure: build (max 3 iterations)
[10:00:00] Baseline: running the gates on the untouched tree...
[10:00:00] Baseline: 2 failures already present (they do not count against the agent)
[10:00:00] Iteration 1/3 starting...
[10:00:45] WARNING: Iteration 1/3 failed in 45.2s: tests: 2 failures (consecutive failures: 1/3)
[10:00:45] Rolling back the work tree to checkpoint 0123456789ab
[10:00:45] Iteration 2/3 starting (refine)...
[10:01:30] Iteration 2/3 completed in 45.0s: escalating (reviewer: NEEDS_REVISION, score 4)
[10:01:30] ESCALATED: a security concern
  Question: Approve?
[10:01:30] WARNING: state not saved
[10:01:30] Finished: succeeded — all required gates passed (2 iterations, total time 1m30.2s)
[10:01:35] WARNING: notification finished to webhook 127.0.0.1:9 not delivered (3 attempts): HTTP 500
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("lines mismatch (-want +got):\n%s", diff)
	}
}

// A reason is said once: the count the decider's reason already ends with is
// not repeated, nor the escalation's reason on the final line.
func TestPrinterSaysEachReasonOnce(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := New(Options{Out: &out, Now: func() time.Time { return time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC) }})
	p.Event(state.Event{Iteration: 2, Data: state.IterationFinished{Duration: 1100, Message: "agent failed: timed out after 1s; consecutive failures: 2/2", ConsecutiveFailures: 2, FailureThreshold: 2, Action: state.ActionAbort}})
	p.Event(state.Event{Iteration: 3, Data: state.IterationFinished{Duration: 1000, Succeeded: true, Message: "tests were deleted", Action: state.ActionEscalate}})
	p.Event(state.Event{Iteration: 3, Data: state.Escalated{Reason: "tests were deleted"}})
	p.Event(state.Event{Data: state.RunFinished{Status: state.StatusEscalated, Reason: "tests were deleted", Iterations: 3, Wall: 3000}})
	want := `[10:00:00] WARNING: Iteration 2 failed in 1.1s: agent failed: timed out after 1s; consecutive failures: 2/2
[10:00:00] Iteration 3 completed in 1.0s: escalating
[10:00:00] ESCALATED: tests were deleted
[10:00:00] Finished: escalated (3 iterations, total time 3.0s)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("lines mismatch (-want +got):\n%s", diff)
	}
}

func TestPrinterUnlimitedAndQuiet(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := New(Options{Out: &out, Quiet: true, Now: func() time.Time { return time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC) }})
	p.Event(state.Event{Data: state.RunStarted{Procedure: "x"}})
	p.Event(state.Event{Iteration: 4, Data: state.IterationStarted{}})
	p.Event(state.Event{Data: state.RunFinished{Status: state.StatusInterrupted, Reason: "interrupted", Iterations: 1, Wall: 1000}})
	want := "[10:00:00] Finished: interrupted — interrupted (1 iteration, total time 1.0s)\n"
	if out.String() != want {
		t.Errorf("quiet output %q, want %q", out.String(), want)
	}
	if got := p.iterLabel(4); got != "Iteration 4" {
		t.Errorf("unlimited label %q", got)
	}
}

func TestDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		45200 * time.Millisecond:        "45.2s",
		125300 * time.Millisecond:       "2m05.3s",
		time.Hour + 2*time.Minute + 5e9: "1h02m",
		0:                               "0.0s",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestStatusLineOnTerminal(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	clock := now
	p := New(Options{Out: &out, Terminal: true, Now: func() time.Time { return clock }})
	p.Event(state.Event{Time: now, Data: state.RunStarted{Procedure: "build", MaxIterations: 3}})
	p.Event(state.Event{Time: now, Iteration: 1, Data: state.IterationFinished{Succeeded: true, Duration: 1000, Tokens: 12000, TokensKnown: true, CostUSD: 0.5, CostKnown: true}})
	p.Event(state.Event{Time: now, Iteration: 1, Data: state.IterationFinished{Succeeded: true, Duration: 1000, Tokens: 99999}})
	p.Event(state.Event{Time: now.Add(time.Minute), Iteration: 2, Data: state.IterationStarted{}})
	out.Reset()
	clock = now.Add(time.Minute + 5*time.Second)
	p.Tick()
	want := "\r\x1b[2KIteration 2/3 · agent 00:05 · elapsed 01:05 · 12k tokens · $0.50"
	if out.String() != want {
		t.Errorf("status line %q, want %q", out.String(), want)
	}
	// during the iteration: the agent's usage as its CLI streams it, added
	p.Usage(evidence.Usage{InputTokens: 3000, OutputTokens: 500, TokensKnown: true, CostUSD: 0.25, CostKnown: true})
	out.Reset()
	p.Tick()
	if want := "\r\x1b[2KIteration 2/3 · agent 00:05 · elapsed 01:05 · 15k tokens · $0.75"; out.String() != want {
		t.Errorf("status line %q, want %q", out.String(), want)
	}
	// once the iteration finished, its figures count it (not twice)
	p.Event(state.Event{Time: clock, Iteration: 2, Data: state.IterationFinished{Succeeded: true, Duration: 1000, Tokens: 3500, TokensKnown: true, CostUSD: 0.25, CostKnown: true}})
	out.Reset()
	p.Tick()
	if want := "\r\x1b[2KIteration 2/3 · agent 00:05 · elapsed 01:05 · 15k tokens · $0.75"; out.String() != want {
		t.Errorf("status line after the iteration %q, want %q", out.String(), want)
	}
	// a progress line clears the status line first
	out.Reset()
	p.Warnf("careful")
	if got := out.String(); got != "\r\x1b[2K[10:01:05] WARNING: careful\n" {
		t.Errorf("line after the status line %q", got)
	}
}

// The status line is drawn during the baseline too, counts the run's earlier
// sessions in its elapsed time, and is cut to the terminal's width.
func TestStatusLineBaselineAndWidth(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	clock := now.Add(3 * time.Second)
	tests := []struct {
		name  string
		width int
		want  string
	}{
		{"unknown width", 0, "Baseline · gates 00:03 · elapsed 01:33"},
		{"wide", 80, "Baseline · gates 00:03 · elapsed 01:33"},
		{"exactly", 39, "Baseline · gates 00:03 · elapsed 01:33"},
		{"narrow", 20, "Baseline · gates 0…"},
		{"one column", 2, "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			p := New(Options{Out: &out, Terminal: true, Now: func() time.Time { return clock }, Width: func() int { return tt.width }})
			p.Event(state.Event{Time: now, Data: state.RunStarted{Procedure: "build", Elapsed: 90_000, Resumed: true}})
			p.Event(state.Event{Time: now, Data: state.BaselineStarted{}})
			out.Reset()
			p.Tick()
			if got := out.String(); got != "\r\x1b[2K"+tt.want {
				t.Errorf("status line %q, want %q", got, tt.want)
			}
		})
	}
}

func TestJSONEvents(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := New(Options{Out: &out, JSON: true, Terminal: true, Now: func() time.Time { return time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC) }})
	p.Event(state.Event{Iteration: 2, Data: state.IterationStarted{MaxIterations: 3}})
	p.Tick()
	p.Linef("Logs and state: %s", "runs/build/1")
	p.Warnf("careful")
	want := `{"v":2,"time":"2026-01-02T10:00:00Z","type":"iteration_started","iteration":2,"data":{"max_iterations":3,"strategy":""}}` + "\n" +
		`{"v":2,"time":"2026-01-02T10:00:00Z","type":"message","data":{"text":"Logs and state: runs/build/1"}}` + "\n" +
		`{"v":2,"time":"2026-01-02T10:00:00Z","type":"warning","data":{"message":"careful"}}` + "\n"
	if out.String() != want {
		t.Errorf("json output %q, want %q", out.String(), want)
	}
}

// TestJSONEventsOfATask: in a task graph every JSON line names its task.
func TestJSONEventsOfATask(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := New(Options{Out: &out, JSON: true, Task: `api "v2"`, Prefix: "api: ", Now: func() time.Time { return time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC) }})
	p.Event(state.Event{Iteration: 1, Data: state.Rollback{Checkpoint: "abc"}})
	want := `{"task":"api \"v2\"","v":2,"time":"2026-01-02T10:00:00Z","type":"rollback","iteration":1,"data":{"checkpoint":"abc"}}` + "\n"
	if out.String() != want {
		t.Errorf("json output %q, want %q", out.String(), want)
	}
	var ev state.Event
	if err := json.Unmarshal(out.Bytes(), &ev); err != nil || ev.Type() != state.EventRollback {
		t.Errorf("the line does not read as an event: %+v, %v", ev, err)
	}
}

func TestPrinterColors(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	for _, color := range []bool{true, false} {
		var out bytes.Buffer
		p := New(Options{Out: &out, Now: func() time.Time { return now }, Color: color})
		p.Event(state.Event{Time: now, Iteration: 1, Data: state.IterationStarted{}})
		p.Event(state.Event{Time: now, Iteration: 1, Data: state.Escalated{Reason: "stuck", Question: "Which?"}})
		p.Warnf("disk %s", "full")
		want := "[10:00:00] Iteration 1 starting...\n" +
			"[10:00:00] \x1b[1;31mESCALATED: stuck\x1b[0m\n\x1b[1;31m  Question: Which?\x1b[0m\n" +
			"[10:00:00] \x1b[33mWARNING: disk full\x1b[0m\n"
		if !color {
			want = "[10:00:00] Iteration 1 starting...\n[10:00:00] ESCALATED: stuck\n  Question: Which?\n[10:00:00] WARNING: disk full\n"
		}
		if diff := cmp.Diff(want, out.String()); diff != "" {
			t.Errorf("Color=%v (-want +got):\n%s", color, diff)
		}
	}
}
