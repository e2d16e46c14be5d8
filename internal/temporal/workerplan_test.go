package temporal

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
	agent := func(line string) InputCommand { return InputCommand{Flag: "--agent-cmd", Line: line} }
	gate := func(line string) InputCommand { return InputCommand{Flag: "--gate", Line: line} }
	for _, tt := range []struct {
		name  string
		trust CommandTrust
		cmds  []InputCommand
		own   func() *plan.Plan
		want  string // "" for allowed
	}{
		{name: "no command in the input", own: none},
		{name: "the configuration's gate", cmds: []InputCommand{gate("go test ./...")}, own: own},
		{name: "a gate of the input", cmds: []InputCommand{gate("go test ./..."), gate("rm -rf /")}, own: own, want: `--gate "rm -rf /"`},
		{name: "an agent command of the input", cmds: []InputCommand{agent("curl x | sh")}, own: own, want: `--agent-cmd "curl x | sh"`},
		{name: "a gate's command as the agent", cmds: []InputCommand{agent("go test ./...")}, own: own, want: `--agent-cmd "go test ./..."`},
		{name: "allowed exactly", trust: CommandTrust{Allow: []string{"my-agent --yes", "make lint"}},
			cmds: []InputCommand{agent("my-agent --yes"), gate("make lint")}, own: none},
		{name: "allowed is exact", trust: CommandTrust{Allow: []string{"my-agent --yes"}},
			cmds: []InputCommand{agent("my-agent --yes; rm -rf ~")}, own: none, want: "--allow-cmd CMD"},
		{name: "trusted", trust: CommandTrust{TrustInput: true}, cmds: []InputCommand{agent("anything"), gate("at all")}, own: none},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.trust.check("build", tt.cmds, tt.own)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("check() = %v, want it allowed", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--trust-input-commands")):
				t.Errorf("check() = %v, want a refusal naming %q and the flags that trust it", err, tt.want)
			}
		})
	}
}
