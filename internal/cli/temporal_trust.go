//go:build temporal

package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/plan"
)

// commandTrust says which commands a worker runs when a run's workflow input
// names them (--agent-cmd, --gate): whoever can start a workflow in the
// namespace writes that input, so by default a worker runs only the commands
// its own clone's configuration defines (agents by name, the procedure's
// gates) and those its operator allowed.
type commandTrust struct {
	trustInput bool     // worker --trust-input-commands: run whatever the input names
	allow      []string // worker --allow-cmd: these command lines, exactly
}

// inputCommands are the commands the run's recorded flags ask a worker to
// run, with the flag that names each.
func inputCommands(lo loopOptions) (flags, cmds []string) {
	if lo.agentCmd != "" {
		flags, cmds = append(flags, "--agent-cmd"), append(cmds, lo.agentCmd)
	}
	for _, g := range lo.gates {
		flags, cmds = append(flags, "--gate"), append(cmds, g)
	}
	return flags, cmds
}

// check refuses a run whose input names a command the worker does not run:
// not allowed, and not a gate of the configuration's own plan of the
// procedure (own, nil when the configuration alone makes none). The error
// names the command, the flag that trusts it, and what trusting means.
func (t commandTrust) check(run string, lo loopOptions, own func() *plan.Plan) error {
	if t.trustInput {
		return nil
	}
	flags, cmds := inputCommands(lo)
	var defined []string
	var refused []string
	for i, c := range cmds {
		if slices.Contains(t.allow, c) {
			continue
		}
		if defined == nil {
			defined = []string{}
			if p := own(); p != nil {
				for _, g := range p.Gates {
					defined = append(defined, g.Command)
				}
			}
		}
		if flags[i] == "--gate" && slices.Contains(defined, c) {
			continue
		}
		refused = append(refused, fmt.Sprintf("%s %q", flags[i], c))
	}
	if len(refused) == 0 {
		return nil
	}
	return fmt.Errorf("run %s asks this worker to run %s, which its configuration does not define: a worker runs only its own configuration's agents and gates and the commands it was started with --allow-cmd CMD (repeatable) for; start it with --allow-cmd for each, or with --trust-input-commands to run whatever a run's workflow input names (then whoever can start a workflow in the namespace can run commands on this worker)",
		run, strings.Join(refused, ", "))
}
