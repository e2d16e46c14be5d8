package cli

import (
	"testing"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/state"
)

// TestFollowedExit: how a followed run ended maps to the exit code; a run a
// worker refused is a configuration error (2), not an abort (3).
func TestFollowedExit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		out  app.Outcome
		want int
	}{
		{name: "succeeded", out: app.Outcome{Status: state.StatusSucceeded}, want: ExitOK},
		{name: "aborted", out: app.Outcome{Status: state.StatusAborted}, want: ExitAborted},
		{name: "aborted as chosen", out: app.Outcome{Status: state.StatusAborted, Chosen: true}, want: ExitOK},
		{name: "refused by a worker", out: app.Outcome{Status: state.StatusAborted, Refused: true}, want: ExitUsage},
		{name: "escalated", out: app.Outcome{Status: state.StatusEscalated}, want: ExitEscalated},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ExitCode(followed(tt.out, nil)); got != tt.want {
				t.Errorf("exit code of %+v = %d, want %d", tt.out, got, tt.want)
			}
		})
	}
}
