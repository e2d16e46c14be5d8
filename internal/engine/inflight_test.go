package engine

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// A session that finds the marker of an iteration a dead session was running
// reports it once, with its time and the spend its transcript tells; the marker
// goes once the state that records it is saved, and a new one is written for
// each iteration until then.
func TestInterruptedIterationIsCountedOnce(t *testing.T) {
	t.Parallel()
	claude, err := agent.Lookup("claude")
	if err != nil {
		t.Fatal(err)
	}
	runDir := t.TempDir()
	started := time.Now().Add(-time.Minute).Truncate(time.Second)
	iter := state.IterDir(runDir, 2)
	if err := os.MkdirAll(iter, 0o700); err != nil {
		t.Fatal(err)
	}
	transcript, err := os.ReadFile(filepath.Join("..", "agent", "testdata", "claude-stream-json-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(iter, "agent.log"), transcript, 0o600); err != nil {
		t.Fatal(err)
	}
	marker := `{"iteration":2,"started_at":"` + started.UTC().Format(time.RFC3339) + `"}`
	if err := os.WriteFile(filepath.Join(runDir, inflightFile), []byte(marker), 0o600); err != nil {
		t.Fatal(err)
	}
	store := &memStore{}
	l := &Local{
		Name: "build", RunID: "r1", WorkDir: t.TempDir(), RunDir: runDir,
		Agent: &PresetAgents{Agent: claude}, Store: store, Events: &memEvents{}, Screen: &warnings{},
		Now: time.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	// The run's first save comes before its first step: the marker is not the
	// engine's to remove yet.
	if err := l.Save(t.Context(), &loop.State{}); err != nil {
		t.Fatal(err)
	}
	res, err := l.Step(t.Context(), loop.StepRequest{Kind: loop.StepBaseline})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Interrupted) != 1 {
		t.Fatalf("Interrupted = %+v, want the cut iteration", res.Interrupted)
	}
	cut := res.Interrupted[0]
	if cut.Iteration != 2 || cut.Duration.Duration() < 50*time.Second || !cut.Usage.TokensKnown || cut.Usage.TotalTokens() == 0 {
		t.Errorf("cut = %+v, want iteration 2, about a minute, and the transcript's tokens", cut)
	}
	if _, err := os.Stat(filepath.Join(runDir, inflightFile)); err != nil {
		t.Fatalf("the marker went before the state recording the cut run was saved: %v", err)
	}
	again, err := l.Step(context.Background(), loop.StepRequest{Kind: loop.StepBaseline})
	if err != nil || len(again.Interrupted) != 0 {
		t.Errorf("a second step reported %+v again (%v)", again.Interrupted, err)
	}
	if err := l.Save(t.Context(), &loop.State{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(runDir, inflightFile)); !os.IsNotExist(err) {
		t.Errorf("the marker outlived the save that recorded the cut run: %v", err)
	}
}

// A marker of an iteration the state already records (the process died after
// saving the state, before removing the marker) is stale: nothing is counted
// and no work is undone.
func TestStaleInflightMarkerIsIgnored(t *testing.T) {
	t.Parallel()
	runDir := t.TempDir()
	marker := `{"iteration":2,"attempt":1,"started_at":"2026-01-01T10:00:00Z"}`
	if err := os.WriteFile(filepath.Join(runDir, inflightFile), []byte(marker), 0o600); err != nil {
		t.Fatal(err)
	}
	l := &Local{
		Name: "build", RunID: "r1", WorkDir: t.TempDir(), RunDir: runDir,
		Agent: &scriptedAgent{results: []evidence.AgentResult{{Agent: "fake"}}}, Prompt: &fakePrompter{},
		Store: &memStore{}, Events: &memEvents{}, Screen: &warnings{},
		Now: time.Now, Sleep: func(context.Context, time.Duration) error { return nil },
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	res, err := l.Step(t.Context(), loop.StepRequest{Kind: loop.StepIteration, Iteration: 3, Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Interrupted) != 0 {
		t.Errorf("a stale marker was counted: %+v", res.Interrupted)
	}
}
