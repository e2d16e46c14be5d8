package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/state"
)

// LoadRunDir reads what the attempts' folders keep for the body: the last
// attempt's review, decision and answer, the best attempt's (a person may
// accept it), and the decision of an earlier attempt flagged for tampering.
func TestLoadRunDirAttempts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(seq int, name, text string) {
		d := state.IterDir(dir, seq)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(1, state.DecisionFile, "decision:\n  action: retry\n  triggers:\n    - id: test_tampering\n      severity: 0.9\n      fixable: true\n      evidence: 1 skip added\n")
	write(2, state.DecisionFile, "decision:\n  action: proceed\n")
	write(2, state.ReviewFile, `{"verdict":"approve","score":8,"summary":"good"}`)
	write(2, state.AnswerFile, "Done: Add adds.")
	write(3, state.AnswerFile, "the best attempt's answer")
	write(4, state.AnswerFile, "not read: attempt 4 is neither the last, the best, reviewed nor flagged")
	write(6, state.AnswerFile, "not read: attempt 6 is not in the history")
	st := &state.State{History: []state.Record{
		{N: 1, Seq: 1, Triggers: []string{decision.TriggerTestTampering}},
		{N: 3, Seq: 3},
		{N: 4, Seq: 4},
		{N: 2, Seq: 2, Review: "approve"},
	}, Best: &state.Checkpoint{Iteration: 3, Seq: 3}}
	r, err := LoadRunDir(dir, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Attempts) != 3 || r.Attempts[3].Answer != "the best attempt's answer" {
		t.Fatalf("attempts read: %v, want 1, 2 and 3", r.Attempts)
	}
	if ts := r.Attempts[1].Triggers; len(ts) != 1 || ts[0].Evidence != "1 skip added" || ts[0].Severity != 0.9 {
		t.Errorf("attempt 1's triggers = %+v", ts)
	}
	if a := r.Attempts[2]; a.Review == nil || a.Review.Summary != "good" || a.Answer != "Done: Add adds." {
		t.Errorf("attempt 2 = %+v", a)
	}
}
