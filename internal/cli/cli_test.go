package cli

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/session"
)

func TestExitCode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("boom"), ExitFailure},
		{usageError("bad flag"), ExitUsage},
		{fmt.Errorf("wrapped: %w", &ExitError{Code: ExitEscalated}), ExitEscalated},
		{&InterruptError{Signal: "interrupt"}, ExitInterrupted},
		{context.Canceled, ExitInterrupted},
		{fmt.Errorf("task file: %w", &session.UsageError{Err: errors.New("bad")}), ExitUsage},
	} {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
	for s, want := range map[loop.Status]int{
		loop.StatusSucceeded: ExitOK, loop.StatusCompleted: ExitOK, loop.StatusAborted: ExitAborted,
		loop.StatusEscalated: ExitEscalated, loop.StatusInterrupted: ExitInterrupted, loop.StatusRunning: ExitFailure,
	} {
		if got := statusExit(s); got != want {
			t.Errorf("statusExit(%s) = %d, want %d", s, got, want)
		}
	}
}

// TestRecordedRun checks that resume rebuilds a run's flags and that the flags
// given to resume win.
func TestRecordedRun(t *testing.T) {
	t.Parallel()
	var first runFlags
	run := &cobra.Command{Use: "run"}
	addRunFlags(run, &first)
	if err := run.Flags().Parse([]string{"--agent-cmd", "my agent --yes", "--gate", "go test ./...", "--gate", "go vet ./...", "--max-cost", "5", "-v"}); err != nil {
		t.Fatal(err)
	}
	recorded := givenFlags(run)
	want := []string{"--agent-cmd=my agent --yes", "--gate=go test ./...", "--gate=go vet ./...", "--max-cost=5"}
	if diff := cmp.Diff(want, recorded); diff != "" {
		t.Errorf("recorded flags (-want +got):\n%s", diff)
	}

	var later runFlags
	resume := &cobra.Command{Use: "resume"}
	addRunFlags(resume, &later)
	if err := resume.Flags().Parse([]string{"--max-cost", "10"}); err != nil {
		t.Fatal(err)
	}
	merged, f, err := recordedRun(Deps{}, recorded, resume)
	if err != nil {
		t.Fatal(err)
	}
	if f.agentCmd != "my agent --yes" || f.maxCost != 10 || len(f.gates) != 2 {
		t.Errorf("merged flags: agent %q, max cost %v, gates %q", f.agentCmd, f.maxCost, f.gates)
	}
	if !merged.Flags().Changed("max-cost") || !merged.Flags().Changed("gate") {
		t.Error("merged command does not mark the recorded and given flags as set")
	}
}
