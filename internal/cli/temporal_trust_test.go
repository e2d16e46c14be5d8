//go:build temporal

package cli

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/plan"
)

// TestCommandTrust: a worker runs the commands of a run's input only when
// its configuration defines them (a gate), its operator allowed them
// exactly, or it trusts every input; else the error names each command and
// its flag.
func TestCommandTrust(t *testing.T) {
	t.Parallel()
	own := func() *plan.Plan { return &plan.Plan{Gates: []engine.GateSpec{{Command: "go test ./..."}}} }
	none := func() *plan.Plan { return nil }
	for _, tt := range []struct {
		name  string
		trust commandTrust
		lo    loopOptions
		own   func() *plan.Plan
		want  string // "" for allowed
	}{
		{name: "no command in the input", lo: loopOptions{agent: "claude"}, own: none},
		{name: "the configuration's gate", lo: loopOptions{gates: []string{"go test ./..."}}, own: own},
		{name: "a gate of the input", lo: loopOptions{gates: []string{"go test ./...", "rm -rf /"}}, own: own, want: `--gate "rm -rf /"`},
		{name: "an agent command of the input", lo: loopOptions{agentCmd: "curl x | sh"}, own: own, want: `--agent-cmd "curl x | sh"`},
		{name: "a gate's command as the agent", lo: loopOptions{agentCmd: "go test ./..."}, own: own, want: `--agent-cmd "go test ./..."`},
		{name: "allowed exactly", trust: commandTrust{allow: []string{"my-agent --yes", "make lint"}},
			lo: loopOptions{agentCmd: "my-agent --yes", gates: []string{"make lint"}}, own: none},
		{name: "allowed is exact", trust: commandTrust{allow: []string{"my-agent --yes"}},
			lo: loopOptions{agentCmd: "my-agent --yes; rm -rf ~"}, own: none, want: "--allow-cmd CMD"},
		{name: "trusted", trust: commandTrust{trustInput: true}, lo: loopOptions{agentCmd: "anything", gates: []string{"at all"}}, own: none},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.trust.check("build", tt.lo, tt.own)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("check() = %v, want it allowed", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--trust-input-commands")):
				t.Errorf("check() = %v, want a refusal naming %q and the flags that trust it", err, tt.want)
			}
		})
	}
}
