package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

func statusStates() []*state.State {
	done := sampleRun().State
	running := &state.State{Version: 1, Name: "fix-auth", Status: state.StatusRunning, Iteration: 1, MaxIterations: 0,
		StartedAt: t0.Add(time.Hour), History: []state.Record{{N: 1, Decision: "refine"}},
		Sessions: []state.Session{{StartedAt: t0.Add(time.Hour)}},
		Spend:    state.Spend{Usage: evidence.Usage{CostUSD: 0.004, CostKnown: true}}}
	return []*state.State{done, nil, running}
}

func TestStatusRows(t *testing.T) {
	t.Parallel()
	now := t0.Add(time.Hour + 90*time.Second)
	rows := StatusRows(statusStates(), now)
	if len(rows) != 2 {
		t.Fatalf("got %d rows, want 2 (nil skipped)", len(rows))
	}
	got := []any{rows[0].Elapsed, rows[0].LastDecision, *rows[0].Tokens, rows[1].Elapsed, rows[1].Tokens == nil, *rows[1].CostUSD}
	// Elapsed is the time at work (state.State.Elapsed): the finished run's
	// counted wall time, the running one's since its session started.
	want := []any{197500 * time.Millisecond, "escalate", int64(37300 + 10400 + 111900 + 8000 + 900), 90 * time.Second, true, 0.004}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows mismatch (-want +got):\n%s", diff)
	}
}

func TestStatusTable(t *testing.T) {
	t.Parallel()
	rows := StatusRows(statusStates(), t0.Add(time.Hour+90*time.Second))
	for _, tt := range []struct {
		name  string
		color bool
	}{{"status_plain", false}, {"status_color", true}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			if err := StatusTable(&b, rows, tt.color); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, b.Bytes())
		})
	}
	t.Run("status_json", func(t *testing.T) {
		t.Parallel()
		var b bytes.Buffer
		if err := StatusJSON(&b, rows); err != nil {
			t.Fatal(err)
		}
		golden(t, "status_json", b.Bytes())
	})
	t.Run("empty", func(t *testing.T) {
		t.Parallel()
		var b bytes.Buffer
		if err := StatusTable(&b, nil, false); err != nil || b.Len() == 0 {
			t.Errorf("empty table: err=%v out=%q", err, b.String())
		}
	})
}
