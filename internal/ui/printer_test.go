package ui

import (
	"bytes"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/loop"
	"github.com/google/go-cmp/cmp"
)

func TestPrinterLines(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	p := New(Options{Out: &out, Now: func() time.Time { return now }})
	at := func(sec int) time.Time { return now.Add(time.Duration(sec) * time.Second) }
	events := []loop.Event{
		{Time: at(0), Type: "run_started", Data: map[string]any{"procedure": "build", "max_iterations": 3}},
		{Time: at(0), Type: "iteration_started", Iteration: 1, Data: map[string]any{}},
		{Time: at(45), Type: "iteration_finished", Iteration: 1, Data: map[string]any{"duration_ms": int64(45200), "succeeded": false, "message": "tests: 2 failures", "consecutive_failures": 1, "failure_threshold": 3}},
		{Time: at(45), Type: "iteration_started", Iteration: 2, Data: map[string]any{"strategy": "refine"}},
		{Time: at(90), Type: "iteration_finished", Iteration: 2, Data: map[string]any{"duration_ms": int64(45000), "succeeded": true, "action": "proceed", "message": "all required gates passed"}},
		{Time: at(90), Type: "run_finished", Data: map[string]any{"status": "succeeded", "reason": "all required gates passed", "iterations": 2, "wall_ms": int64(90200)}},
	}
	for _, ev := range events {
		p.Event(ev)
	}
	want := `[10:00:00] Starting procedure: build (max 3 iterations)
[10:00:00] Iteration 1/3 starting...
[10:00:45] WARNING: Iteration 1/3 failed in 45.2s: tests: 2 failures (consecutive failures: 1/3)
[10:00:45] Iteration 2/3 starting (refine)...
[10:01:30] Iteration 2/3 completed in 45.0s: all required gates passed
[10:01:30] Finished: succeeded — all required gates passed (2 iterations, total time 1m30.2s)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("lines mismatch (-want +got):\n%s", diff)
	}
}

func TestPrinterUnlimitedAndQuiet(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := New(Options{Out: &out, Quiet: true, Now: func() time.Time { return time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC) }})
	p.Event(loop.Event{Type: "run_started", Data: map[string]any{"procedure": "x", "max_iterations": 0}})
	p.Event(loop.Event{Type: "iteration_started", Iteration: 4})
	p.Event(loop.Event{Type: "run_finished", Data: map[string]any{"status": "interrupted", "reason": "interrupted", "iterations": 1, "wall_ms": int64(1000)}})
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
	p.Event(loop.Event{Time: now, Type: "run_started", Data: map[string]any{"procedure": "build", "max_iterations": 3}})
	p.Event(loop.Event{Time: now, Type: "iteration_finished", Iteration: 1, Data: map[string]any{"succeeded": true, "duration_ms": int64(1000), "tokens": int64(12000), "tokens_known": true, "cost_usd": 0.5, "cost_known": true}})
	p.Event(loop.Event{Time: now.Add(time.Minute), Type: "iteration_started", Iteration: 2})
	out.Reset()
	clock = now.Add(time.Minute + 5*time.Second)
	p.Tick()
	want := "\r\x1b[2KIteration 2/3 · agent 00:05 · elapsed 01:05 · 12k tokens · $0.50"
	if out.String() != want {
		t.Errorf("status line %q, want %q", out.String(), want)
	}
	// a progress line clears the status line first
	out.Reset()
	p.Warnf("careful")
	if got := out.String(); got != "\r\x1b[2K[10:01:05] WARNING: careful\n" {
		t.Errorf("line after the status line %q", got)
	}
}

func TestJSONEvents(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := New(Options{Out: &out, JSON: true, Terminal: true, Now: func() time.Time { return time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC) }})
	p.Event(loop.Event{Type: "iteration_started", Iteration: 2})
	p.Tick()
	want := `{"time":"2026-01-02T10:00:00Z","type":"iteration_started","iteration":2}` + "\n"
	if out.String() != want {
		t.Errorf("json output %q, want %q", out.String(), want)
	}
}
