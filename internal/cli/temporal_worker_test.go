//go:build temporal

package cli

import (
	"slices"
	"testing"

	"github.com/agentloop/agentloop/internal/temporal"
)

// TestRunFlags: a worker reads in a run's recorded flags the commands they
// ask it to run, each with its flag, and -v; flags that no longer parse are
// an error.
func TestRunFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		recorded []string
		want     temporal.RunFlags
		err      bool
	}{
		{recorded: nil},
		{recorded: []string{"--agent", "claude", "--max-iterations=3"}},
		{recorded: []string{"--agent-cmd=my-agent --yes", "--gate", "go test ./...", "--gate=make lint", "-v"}, want: temporal.RunFlags{
			Commands: []temporal.InputCommand{{Flag: "--agent-cmd", Line: "my-agent --yes"}, {Flag: "--gate", Line: "go test ./..."}, {Flag: "--gate", Line: "make lint"}},
			Verbose:  true,
		}},
		{recorded: []string{"--no-such-flag"}, err: true},
	} {
		got, err := runFlags(tt.recorded)
		if (err != nil) != tt.err {
			t.Errorf("runFlags(%q) error %v, want error %v", tt.recorded, err, tt.err)
			continue
		}
		if got.Verbose != tt.want.Verbose || !slices.Equal(got.Commands, tt.want.Commands) {
			t.Errorf("runFlags(%q) = %+v, want %+v", tt.recorded, got, tt.want)
		}
	}
}
