package engine

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/ledger"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
)

// A session that finds the marker of an attempt a dead session was running
// reports it once, with the time its agent ran (to the marker's heartbeat) and
// the spend its transcript tells; the marker goes once a state is saved.
func TestInterruptedAttemptIsCountedOnce(t *testing.T) {
	t.Parallel()
	claude, err := agent.Lookup("claude")
	if err != nil {
		t.Fatal(err)
	}
	runDir := t.TempDir()
	started := time.Now().Add(-time.Minute).Truncate(time.Second)
	iter := state.IterDir(runDir, 5)
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
	// The agent.log was last written right at the start; the heartbeat says
	// the agent ran 40 s more: a silent agent's time comes from the heartbeat.
	if err := os.Chtimes(filepath.Join(iter, "agent.log"), started.Add(time.Second), started.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(runDir, inflightFile)
	if err := os.WriteFile(marker, []byte(`{"seq":5,"iteration":2,"started_at":"`+started.UTC().Format(time.RFC3339)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(marker, started.Add(41*time.Second), started.Add(41*time.Second)); err != nil {
		t.Fatal(err)
	}
	l := &Local{
		Name: "build", RunID: "r1", WorkDir: t.TempDir(), RunDir: runDir,
		Agent: &plan.PresetAgents{Agent: claude}, Store: &memStore{}, Events: &memEvents{}, Screen: &warnings{},
		Now: time.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	cut, err := l.Recover(t.Context(), 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(cut) != 1 {
		t.Fatalf("Recover = %+v, want the cut attempt", cut)
	}
	if c := cut[0]; c.Seq != 5 || c.Iteration != 2 || c.Duration != 41_000 || !c.Usage.TokensKnown || c.Usage.TotalTokens() == 0 {
		t.Errorf("cut = %+v, want attempt 5 (iteration 2), 41 s from the heartbeat, and the transcript's tokens", c)
	}
	if err := l.Save(t.Context(), &state.State{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the marker outlived the save that recorded the cut attempt: %v", err)
	}
	if again, err := l.Recover(t.Context(), 5); err != nil || len(again) != 0 {
		t.Errorf("the cut attempt was reported again: %+v (%v)", again, err)
	}
}

// A marker of an attempt the state already records (the process died after
// saving the state, before removing the marker) is stale: nothing is counted
// and it is removed.
func TestStaleInflightMarkerIsIgnored(t *testing.T) {
	t.Parallel()
	runDir := t.TempDir()
	marker := filepath.Join(runDir, inflightFile)
	if err := os.WriteFile(marker, []byte(`{"seq":3,"iteration":2,"attempt":1,"started_at":"2026-01-01T10:00:00Z"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	l := &Local{Name: "build", RunID: "r1", WorkDir: t.TempDir(), RunDir: runDir, Screen: &warnings{},
		Now: time.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	cut, err := l.Recover(t.Context(), 3)
	if err != nil || len(cut) != 0 {
		t.Errorf("a stale marker was counted: %+v (%v)", cut, err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the stale marker was left: %v", err)
	}
}

// An attempt's heartbeat touches its marker while it runs, and stops with it.
func TestMarkerHeartbeat(t *testing.T) {
	t.Parallel()
	runDir := t.TempDir()
	l := &Local{Name: "build", RunID: "r1", RunDir: runDir, Screen: &warnings{}, Now: time.Now,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	old := time.Now().Add(-time.Hour)
	l.markStart(loop.StepRequest{Iteration: 1}, 1, old, "")
	marker := filepath.Join(runDir, inflightFile)
	if err := os.Chtimes(marker, old, old); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		fi, err := os.Stat(marker)
		if err != nil {
			t.Fatal(err)
		}
		if fi.ModTime().After(old.Add(time.Minute)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the marker was not touched while the attempt ran")
		}
		time.Sleep(100 * time.Millisecond)
	}
	l.stopBeat()
	if err := os.Chtimes(marker, old, old); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * beatEvery)
	if fi, _ := os.Stat(marker); fi.ModTime().After(old.Add(time.Minute)) {
		t.Error("the heartbeat went on after the attempt stopped")
	}
}

// The marker is written whole over an older one, readable by its owner only,
// and no temporary file is left beside it.
func TestMarkerWrittenWhole(t *testing.T) {
	t.Parallel()
	runDir := t.TempDir()
	w := &warnings{}
	l := &Local{Name: "build", RunID: "r1", RunDir: runDir, Screen: w, Now: time.Now,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	for seq := 1; seq <= 2; seq++ {
		l.markStart(loop.StepRequest{Iteration: seq}, seq, start, "abc")
		l.stopBeat()
	}
	b, err := os.ReadFile(filepath.Join(runDir, inflightFile))
	if err != nil {
		t.Fatal(err)
	}
	var m inflight
	if err := json.Unmarshal(b, &m); err != nil || m.Seq != 2 || m.Iteration != 2 || !m.StartedAt.Equal(start) || m.Checkpoint != "abc" {
		t.Errorf("marker %s (%v)", b, err)
	}
	entries, _ := os.ReadDir(runDir)
	if len(entries) != 1 {
		t.Errorf("run folder holds %d entries, want the marker alone", len(entries))
	}
	if fi, err := os.Stat(filepath.Join(runDir, inflightFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("marker mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	if len(w.got) != 0 {
		t.Errorf("warnings: %v", w.got)
	}
}

// An attempt whose process died after creating its folder and before writing
// its marker (its agent never ran) is still counted as cut, so that its number
// and folder are never given to another attempt; after a stale marker too. The
// folder of an older build's iteration, which has its prompt, is not.
func TestUnmarkedAttemptIsCut(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name          string
		stale, prompt bool
		want          int // the cut attempt's number, 0 for none
	}{
		{"folder, no marker", false, false, 3},
		{"folder, stale marker", true, false, 3},
		{"an older build's folder", false, true, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runDir := t.TempDir()
			dir, err := state.NewAttemptDir(runDir, 3)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(dir, "gates"), 0o700); err != nil {
				t.Fatal(err)
			}
			if tt.prompt {
				if err := os.WriteFile(filepath.Join(dir, "prompt.md"), []byte("do it"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tt.stale {
				if err := os.WriteFile(filepath.Join(runDir, inflightFile), []byte(`{"seq":2,"iteration":2,"started_at":"2026-01-01T10:00:00Z"}`), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			l := &Local{Name: "build", RunID: "r1", WorkDir: t.TempDir(), RunDir: runDir, Screen: &warnings{},
				Now: time.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
			cut, err := l.Recover(t.Context(), 2)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == 0 && len(cut) != 0:
				t.Errorf("Recover = %+v, want nothing", cut)
			case tt.want != 0 && (len(cut) != 1 || cut[0].Seq != tt.want || cut[0].Start != "" || cut[0].Usage.TokensKnown):
				t.Errorf("Recover = %+v, want attempt %d cut with nothing to undo or count", cut, tt.want)
			}
			if _, err := l.Recover(t.Context(), 3); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// An attempt cut after its review (a kill after the reviewer's answer,
// before the state recorded the iteration) counts what its reviewer spent,
// from the review's saved transcript, and its reservation is settled with
// the agent's and the reviewer's charges, each to its own key: the run and
// the shared ledger record the same spend.
func TestCutAttemptCountsItsReview(t *testing.T) {
	t.Parallel()
	claude, err := agent.Lookup("claude")
	if err != nil {
		t.Fatal(err)
	}
	l, lg, _ := sharedLocal(t, nil, nil)
	l.Agent = &plan.PresetAgents{Agent: claude}
	l.Reviewer = &plan.ReviewerAgent{Agent: claude}
	l.Spend.Reviewer = budget.Key{Provider: "claude", Account: "claude:reviewer"}
	iter := state.IterDir(l.RunDir, 3)
	if err := os.MkdirAll(iter, 0o700); err != nil {
		t.Fatal(err)
	}
	result := func(cost string) []byte {
		return []byte(`{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"done","session_id":"s","total_cost_usd":` + cost + `,"usage":{"input_tokens":100,"output_tokens":50}}` + "\n")
	}
	for name, b := range map[string][]byte{"agent.log": result("0.0421"), "review-1.log": result("0.03")} {
		if err := os.WriteFile(filepath.Join(iter, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(l.RunDir, inflightFile), []byte(`{"seq":3,"iteration":3,"started_at":"2026-11-25T10:00:00Z"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cut, err := l.Recover(t.Context(), 2)
	if err != nil || len(cut) != 1 {
		t.Fatalf("Recover = %+v, %v; want the cut attempt", cut, err)
	}
	if c := cut[0]; c.Usage.CostUSD != 0.0421 || c.Reviewer.CostUSD != 0.03 || !c.Reviewer.CostKnown {
		t.Errorf("cut = %+v, want the agent's $0.0421 and the reviewer's $0.03", c)
	}
	var agentUSD, reviewerUSD float64
	if err := lg.View(func(b *ledger.Book, now time.Time) {
		for k, s := range b.ByKey(ledger.Day, now) {
			if k.Account == "claude:reviewer" {
				reviewerUSD += s.USD
			} else {
				agentUSD += s.USD
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if agentUSD != 0.0421 || reviewerUSD != 0.03 {
		t.Errorf("the ledger holds $%g for the agent and $%g for the reviewer, want $0.0421 and $0.03", agentUSD, reviewerUSD)
	}
}

// An attempt whose agent hit its usage limit and went on with a fallback
// agent names the fallback in its marker: a session that finds the attempt
// cut reads its agent.log (the fallback's transcript by then) as the
// fallback's and counts what it spent.
func TestMarkerNamesTheFallback(t *testing.T) {
	t.Parallel()
	claude, err := agent.Lookup("claude")
	if err != nil {
		t.Fatal(err)
	}
	fb, err := agent.Lookup("codex")
	if err != nil {
		t.Fatal(err)
	}
	fb.Name = "fb"
	reset := time.Date(2026, 1, 1, 15, 0, 0, 0, time.UTC)
	scripted := &scriptedAgent{results: []evidence.AgentResult{
		{Agent: "claude", ExitCode: 1, RateLimited: true, Reason: "You've hit your limit · resets 3pm", ResetAt: reset},
		{Agent: "codex", ExitCode: 0},
	}}
	var slept []time.Duration
	l := newLocal(scripted, RateLimitPolicy{MaxWait: time.Hour, Fallback: []string{"fb"}}, &slept)
	l.RunDir = t.TempDir()
	l.markStart(loop.StepRequest{Iteration: 1}, 1, time.Now(), "")
	if _, _, err := l.runAgent(t.Context(), loop.AgentRequest{Iteration: 1}); err != nil {
		t.Fatal(err)
	}
	l.stopBeat()
	if !slices.Equal(scripted.ran, []string{"", "fb"}) {
		t.Fatalf("agents run %q, want the configured one, then fb", scripted.ran)
	}
	// The session dies with the fallback's transcript in the attempt's folder.
	iter := state.IterDir(l.RunDir, 1)
	transcript, err := os.ReadFile(filepath.Join("..", "agent", "testdata", "codex-exec-json-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(iter, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(iter, "agent.log"), transcript, 0o600); err != nil {
		t.Fatal(err)
	}
	next := &Local{
		Name: "build", RunID: "r1", WorkDir: t.TempDir(), RunDir: l.RunDir,
		Agent: &plan.PresetAgents{Agent: claude, Fallback: []agent.Preset{fb}}, Store: &memStore{}, Events: &memEvents{}, Screen: &warnings{},
		Now: time.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	cut, err := next.Recover(t.Context(), 0)
	if err != nil || len(cut) != 1 {
		t.Fatalf("Recover = %+v, %v; want the cut attempt", cut, err)
	}
	if u := cut[0].Usage; !u.TokensKnown || u.TotalTokens() == 0 {
		t.Errorf("the cut attempt's usage %+v: want the tokens of fb's transcript", u)
	}
}
