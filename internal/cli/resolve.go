package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/engine"
)

// shellMeta are the characters that make a command line need a shell.
const shellMeta = "|&;<>()$`\\\"'*?[]#~=%{}\n"

// commandArgv turns a configured command into an argv: a plain command line is
// split on spaces (no shell process in between); anything with shell syntax runs
// under sh -c.
func commandArgv(c config.Command) []string {
	if len(c.Argv) > 0 {
		return slices.Clone(c.Argv)
	}
	if c.Shell == "" {
		return nil
	}
	if !strings.ContainsAny(c.Shell, shellMeta) {
		return strings.Fields(c.Shell)
	}
	return []string{"sh", "-c", c.Shell}
}

// resolveAgent turns a procedure's agent reference into a runnable preset: a
// built-in preset, a configured agent (which may build on a preset field by
// field), or an inline command.
func resolveAgent(cfg *config.Config, ref config.AgentRef) (agent.Preset, error) {
	spec, name := ref.Spec, ref.Name
	if name != "" {
		if s, ok := cfg.Agents[name]; ok {
			spec = s
		} else {
			p, err := agent.Lookup(name)
			if err != nil {
				return agent.Preset{}, fmt.Errorf("agent %q is neither a preset nor defined under agents: in the configuration (%w)", name, err)
			}
			return p, nil
		}
	}
	base := spec.Preset
	if base == "" {
		if _, err := agent.Lookup(name); name != "" && err == nil {
			base = name
		} else {
			base = "custom"
		}
	}
	p, err := agent.Lookup(base)
	if err != nil {
		return agent.Preset{}, fmt.Errorf("agent %q: preset %q: %w", ref.String(), base, err)
	}
	o := agent.Override{Args: spec.Args, ExtraArgs: spec.ExtraArgs, Env: spec.Env, PromptVia: spec.PromptVia, Format: spec.Format}
	if argv := commandArgv(spec.Cmd); len(argv) > 0 {
		o.Binary = argv[0]
		if spec.Args == nil {
			o.Args = argv[1:]
		}
	}
	p = p.Merge(o)
	if name != "" {
		p.Name = name
	} else if p.Name == "custom" && p.Binary != "" {
		p.Name = spec.Cmd.String()
	}
	if err := p.Validate(); err != nil {
		return agent.Preset{}, err
	}
	return p, nil
}

// gateSpecs resolves the configured gates for the engine.
func gateSpecs(gs []config.Gate) []engine.GateSpec {
	out := make([]engine.GateSpec, 0, len(gs))
	for _, g := range gs {
		out = append(out, engine.GateSpec{
			Name: g.Name, Argv: commandArgv(g.Run), Command: g.Run.String(), Dir: g.Dir,
			Env: envList(g.Env), Timeout: g.Timeout, Required: g.Required, Format: g.Format,
			TolerateBaseline: g.TolerateBaseline, MaxFeedback: g.MaxFeedback,
		})
	}
	return out
}

func envList(m map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}
