package tasks

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/suggest"
)

// task reads one task mapping.
func (p *parser) task(n *yaml.Node) Task {
	t := Task{Pos: p.pos(n)}
	p.mapping(n, "a task", func(key string, k, v *yaml.Node) {
		switch key {
		case "id":
			t.ID = p.str(v, "id")
			if t.ID != "" && !idPattern().MatchString(t.ID) {
				p.errorf(v, "id %q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", t.ID)
			}
		case "title":
			t.Title = p.str(v, "title")
		case "prompt":
			t.Prompt = p.str(v, "prompt")
		case "procedure":
			t.Procedure = p.str(v, "procedure")
		case "depends_on":
			t.DependsOn = p.strings(v, "depends_on")
		case "files":
			t.Files = p.strings(v, "files")
		case "gates":
			if p.kind(v, yaml.SequenceNode, "gates: a list of gates") {
				t.Gates = []Gate{}
				for _, g := range v.Content {
					t.Gates = append(t.Gates, p.gate(g))
				}
			}
		case "limits":
			t.Limits = p.limits(v)
		default:
			p.unknown(k, key, "a task", "id, title, prompt, procedure, depends_on, gates, limits, files")
		}
	})
	if n.Kind != yaml.MappingNode {
		return t
	}
	if t.ID == "" {
		p.errorf(n, "task without an id: every task needs id: NAME")
	}
	if t.Prompt != "" && t.Procedure != "" {
		p.errorf(n, "task %s: give prompt or procedure, not both", t.ID)
	}
	if strings.TrimSpace(t.Prompt+t.Procedure+t.Title) == "" && t.ID != "" {
		p.errorf(n, "task %s: say what to do with prompt:, procedure: or title:", t.ID)
	}
	return t
}

func (p *parser) gate(n *yaml.Node) Gate {
	var g Gate
	p.mapping(n, "a gate", func(key string, k, v *yaml.Node) {
		switch key {
		case "name":
			g.Name = p.str(v, "name")
		case "run":
			g.Run = p.str(v, "run")
		case "format":
			g.Format = p.str(v, "format")
			if _, ok := gate.FormatName(g.Format); g.Format != "" && !ok {
				names := append([]string{"auto"}, gate.Formats()...)
				if near := suggest.Closest(g.Format, names); near != "" {
					p.errorf(v, "unknown gate format %q; did you mean %q?", g.Format, near)
				} else {
					p.errorf(v, "unknown gate format %q; use one of %s", g.Format, strings.Join(names, ", "))
				}
			}
		case "timeout":
			g.Timeout = p.duration(v, "timeout")
		case "required":
			r := p.bool(v, "required")
			g.Required = &r
		case "tolerate_baseline":
			g.TolerateBaseline = p.bool(v, "tolerate_baseline")
		case "rerun":
			g.Rerun = p.str(v, "rerun")
			if !slices.Contains(gate.RerunModes(), g.Rerun) {
				p.errorf(v, "unknown rerun %q; use one of %s", g.Rerun, strings.Join(gate.RerunModes(), ", "))
			}
		default:
			p.unknown(k, key, "a gate", "name, run, format, timeout, required, tolerate_baseline, rerun")
		}
	})
	if n.Kind == yaml.MappingNode && strings.TrimSpace(g.Run) == "" {
		p.errorf(n, "gate %q has no run: command", g.Name)
	}
	if n.Kind == yaml.MappingNode && g.Name == "" {
		g.Name = strings.Fields(g.Run + " gate")[0]
	}
	return g
}

func (p *parser) limits(n *yaml.Node) *Limits {
	l := &Limits{}
	p.mapping(n, "limits", func(key string, k, v *yaml.Node) {
		switch key {
		case "max_iterations":
			l.MaxIterations = int(p.int(v, key, 0, 1<<20))
		case "failure_threshold":
			l.FailureThreshold = int(p.int(v, key, 0, 1<<20))
		case "iteration_timeout":
			l.IterationTimeout = p.duration(v, key)
		case "max_tokens":
			l.MaxTokens = p.int(v, key, 0, 1<<62)
		case "max_cost_usd":
			l.MaxCostUSD = p.float(v, key)
		case "max_duration":
			l.MaxDuration = p.duration(v, key)
		case "token_budget":
			l.TokenBudget = p.int(v, key, 0, 1<<62)
		default:
			p.unknown(k, key, "limits", "max_iterations, failure_threshold, iteration_timeout, max_tokens, max_cost_usd, max_duration, token_budget")
		}
	})
	return l
}
