package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// A running row adds its agent's usage so far to the run's and shows its
// phase with how long it has been in it, and the iteration the live status
// says, and the tool call its agent runs, cut; an escalated one waits for you.
func TestWatchTable(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 5, 0, 0, 0, time.UTC)
	tok, cost := int64(1000), 0.5
	rows := []WatchRow{
		{StatusRow: StatusRow{Name: "build", Status: state.StatusRunning, Iteration: 1, MaxIterations: 3, Tokens: &tok, CostUSD: &cost, LastDecision: "retry", Elapsed: 90 * time.Second},
			Live: &state.LiveStatus{Iteration: 2, Phase: "agent", Since: now.Add(-12 * time.Second),
				Usage: evidence.Usage{InputTokens: 2000, OutputTokens: 500, TokensKnown: true, CostUSD: 0.25, CostKnown: true},
				Tool:  "Bash: go test -run 'TestLogin|TestLogout|TestSession' ./internal/auth/..."}},
		{StatusRow: StatusRow{Name: "plan-api", Status: state.StatusEscalated, Iteration: 3, MaxIterations: 3, LastDecision: "escalate", Elapsed: time.Minute}},
	}
	var b bytes.Buffer
	if err := WatchTable(&b, rows, now); err != nil {
		t.Fatal(err)
	}
	want := "NAME      STATUS     ITERATION  PHASE            TOKENS   COST     LAST DECISION  ELAPSED  TOOL\n" +
		"build     running    2/3        agent 12.0s      3,500    $0.75    retry          1m30s    Bash: go test -run 'TestLogin|TestLogout|TestSe…\n" +
		"plan-api  escalated  3/3        waiting for you  unknown  unknown  escalate       1m00s\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("WatchTable() (-want +got):\n%s", diff)
	}
}

// A gate running more than three times as long as it took last time says so
// in the phase; one within that shows the phase as usual.
func TestWatchSlowGate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 5, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name    string
		running time.Duration
		usually time.Duration
		want    string
	}{
		{"far past its usual time", 12 * time.Minute, 40 * time.Second, "gates: tests running 12m00s (usually 40.0s)"},
		{"within it", 100 * time.Second, 40 * time.Second, "gates 12m00s"},
		{"its first run", 12 * time.Minute, 0, "gates 12m00s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := WatchRow{StatusRow: StatusRow{Name: "build", Status: state.StatusRunning, Iteration: 1},
				Live: &state.LiveStatus{Iteration: 1, Phase: "gates", Since: now.Add(-12 * time.Minute),
					Gate: "tests", GateSince: now.Add(-tt.running), GateUsually: tt.usually}}
			if got := r.Cells(now)[3]; got != tt.want {
				t.Errorf("phase %q, want %q", got, tt.want)
			}
		})
	}
}
