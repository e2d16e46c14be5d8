package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/sandbox/policy"
	"github.com/agentloop/agentloop/internal/yamlnode"
)

// gates decodes the gate list. A gate is a mapping, or a plain string as a
// shorthand for {run: STRING}.
func (d *decoder) gates(n *yaml.Node, key string) []Gate {
	r := yamlnode.Resolve(n)
	if r == nil || r.Kind != yaml.SequenceNode {
		d.fail(n, key, "expected a list of gates, got %s", yamlnode.Kind(n))
		return nil
	}
	if !d.spend(n, 1+len(r.Content)) {
		return nil
	}
	out := make([]Gate, 0, len(r.Content))
	names := map[string]bool{}
	for i, c := range r.Content {
		k := fmt.Sprintf("%s[%d]", key, i)
		g := d.gate(c, k)
		if g.Name == "" {
			g.Name = gateName(g.Run)
		}
		base := g.Name
		for j := 2; names[g.Name]; j++ {
			g.Name = fmt.Sprintf("%s-%d", base, j)
		}
		names[g.Name] = true
		out = append(out, g)
	}
	return out
}

func (d *decoder) gate(n *yaml.Node, key string) Gate {
	g := Gate{Required: true, Format: "auto"}
	if r := yamlnode.Resolve(n); r != nil && r.Kind == yaml.ScalarNode {
		g.Run = d.command(n, key)
		return g
	}
	d.fields(n, key, map[string]func(*yaml.Node, string){
		"name":              func(v *yaml.Node, k string) { g.Name = d.str(v, k) },
		"run":               func(v *yaml.Node, k string) { g.Run = d.command(v, k) },
		"dir":               func(v *yaml.Node, k string) { g.Dir = d.str(v, k) },
		"timeout":           func(v *yaml.Node, k string) { g.Timeout = d.duration(v, k) },
		"required":          func(v *yaml.Node, k string) { g.Required = d.boolean(v, k) },
		"format":            func(v *yaml.Node, k string) { g.Format = d.gateFormat(v, k) },
		"env":               func(v *yaml.Node, k string) { g.Env = d.strMap(v, k) },
		"tolerate_baseline": func(v *yaml.Node, k string) { g.TolerateBaseline = d.boolean(v, k) },
		"max_feedback":      func(v *yaml.Node, k string) { g.MaxFeedback = d.count(v, k) },
		"rerun":             func(v *yaml.Node, k string) { g.Rerun = d.oneOf(v, k, gate.RerunModes()...) },
	})
	if r := yamlnode.Resolve(n); r != nil && r.Kind == yaml.MappingNode && keyNode(n, "run") == n {
		d.fail(n, key, `a gate needs run: the command to execute, e.g. run: "go test ./..."`)
	}
	return g
}

// gateName derives a gate's name from its command: the program's base name,
// and its subcommand when it has one ("go test ./..." is go-test).
func gateName(c Command) string {
	words := c.Argv
	if len(words) == 0 {
		words = strings.Fields(c.Shell)
	}
	if len(words) == 0 {
		return "gate"
	}
	prog := strings.TrimSuffix(filepath.Base(words[0]), filepath.Ext(words[0]))
	if prog == "" || prog == "." || prog == "/" || strings.ContainsAny(prog, "=$`'\"") {
		return "gate"
	}
	if len(words) > 1 && subcommand().MatchString(words[1]) {
		prog += "-" + words[1]
	}
	return prog
}

var subcommand = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_-]{0,30}$`) })

// gateFormat decodes a gate's output format: "auto", a name gate parses, or
// another spelling of one.
func (d *decoder) gateFormat(n *yaml.Node, key string) string {
	names := append([]string{"auto"}, gate.Formats()...)
	return d.named(n, key, "gate format", func(s string) bool { _, ok := gate.FormatName(s); return ok }, names)
}

func (d *decoder) reviewer(n *yaml.Node, key string) *Reviewer {
	rv := &Reviewer{MaxRounds: 3}
	if r := yamlnode.Resolve(n); r != nil && r.Kind == yaml.ScalarNode {
		rv.Agent = d.agentRef(n, key) // reviewer: codex
		return rv
	}
	d.fields(n, key, map[string]func(*yaml.Node, string){
		"agent":      func(v *yaml.Node, k string) { rv.Agent = d.agentRef(v, k) },
		"prompt":     func(v *yaml.Node, k string) { rv.Prompt = d.part(v, k) },
		"max_rounds": func(v *yaml.Node, k string) { rv.MaxRounds = d.count(v, k) },
	})
	return rv
}

func (d *decoder) limits(n *yaml.Node, key string) Limits {
	var l Limits
	d.fields(n, key, map[string]func(*yaml.Node, string){
		"max_iterations":    func(v *yaml.Node, k string) { l.MaxIterations = d.count(v, k) },
		"failure_threshold": func(v *yaml.Node, k string) { l.FailureThreshold = d.count(v, k) },
		"iteration_timeout": func(v *yaml.Node, k string) { l.IterationTimeout = d.duration(v, k) },
		"idle_timeout":      func(v *yaml.Node, k string) { l.IdleTimeout = d.duration(v, k) },
		"gate_timeout":      func(v *yaml.Node, k string) { l.GateTimeout = d.duration(v, k) },
		"timeout":           func(v *yaml.Node, k string) { l.Timeout = d.duration(v, k) },
		"max_tokens":        func(v *yaml.Node, k string) { l.MaxTokens = d.integer(v, k) },
		"max_cost_usd":      func(v *yaml.Node, k string) { l.MaxCostUSD = d.float(v, k) },
		"max_duration":      func(v *yaml.Node, k string) { l.MaxDuration = d.duration(v, k) },
		"token_budget":      func(v *yaml.Node, k string) { l.TokenBudget = d.integer(v, k) },
	})
	return l
}

func (d *decoder) escalation(n *yaml.Node, key string) Escalation {
	var e Escalation
	d.fields(n, key, map[string]func(*yaml.Node, string){
		"on": func(v *yaml.Node, k string) {
			e.On = d.strings(v, k)
			classes := decision.EscalationClasses()
			for i, s := range e.On {
				if s == "" || !slices.Contains(classes, s) {
					d.unknown(yamlnode.Resolve(v).Content[i], fmt.Sprintf("%s[%d]", k, i), "escalation class", s, classes)
				}
			}
		},
		"protected_paths": func(v *yaml.Node, k string) { e.ProtectedPaths = d.strings(v, k) },
		"include_diff":    func(v *yaml.Node, k string) { e.IncludeDiff = d.boolean(v, k) },
		"max_diff_lines":  func(v *yaml.Node, k string) { e.MaxDiffLines = d.count(v, k) },
	})
	return e
}

// procSandbox decodes a procedure's sandbox: true or false, or a mapping
// whose agents: defaults to true.
func (d *decoder) procSandbox(n *yaml.Node, key string) Sandbox {
	if r := yamlnode.Resolve(n); r != nil && r.Kind == yaml.ScalarNode {
		return Sandbox{Agents: d.boolean(n, key)}
	}
	s := Sandbox{Agents: true}
	s.Config = d.sandboxConfig(n, key, map[string]func(*yaml.Node, string){
		"agents": func(v *yaml.Node, k string) { s.Agents = d.boolean(v, k) },
		"gates":  func(v *yaml.Node, k string) { s.Gates = d.boolean(v, k) },
	})
	return s
}

// agentSandbox decodes an agent's sandbox: true, or a mapping of what it adds.
func (d *decoder) agentSandbox(n *yaml.Node, key string) *policy.Config {
	if r := yamlnode.Resolve(n); r != nil && r.Kind == yaml.ScalarNode {
		if !d.boolean(n, key) {
			d.fail(n, key, "an agent's sandbox is true or a mapping {network: …, allow: […]}; leave it out to run the agent as the procedure says")
		}
		return &policy.Config{}
	}
	c := d.sandboxConfig(n, key, nil)
	return &c
}

// sandboxConfig decodes network, allow, read and write, and the extra fields.
func (d *decoder) sandboxConfig(n *yaml.Node, key string, extra map[string]func(*yaml.Node, string)) policy.Config {
	var c policy.Config
	fs := map[string]func(*yaml.Node, string){
		"network": func(v *yaml.Node, k string) { c.Network = d.oneOf(v, k, policy.NetworkModes()...) },
		"allow": func(v *yaml.Node, k string) {
			c.Allow = d.strings(v, k)
			for i, h := range c.Allow {
				if _, err := policy.ParseHost(h); err != nil {
					d.fail(yamlnode.Resolve(v).Content[i], fmt.Sprintf("%s[%d]", k, i), "%v", err)
				}
			}
		},
		"read":  func(v *yaml.Node, k string) { c.Read = d.sandboxPaths(v, k) },
		"write": func(v *yaml.Node, k string) { c.Write = d.sandboxPaths(v, k) },
		"settings": func(v *yaml.Node, k string) {
			if c.Settings = d.str(v, k); !filepath.IsAbs(c.Settings) && !strings.HasPrefix(c.Settings, "~/") {
				d.fail(v, k, "%q: want an absolute path or one under ~/", c.Settings)
			}
		},
	}
	maps.Copy(fs, extra)
	d.fields(n, key, fs)
	return c
}

// sandboxPaths decodes a list of absolute paths or paths under ~/.
func (d *decoder) sandboxPaths(n *yaml.Node, key string) []string {
	ps := d.strings(n, key)
	for i, p := range ps {
		if !filepath.IsAbs(p) && p != "~" && !strings.HasPrefix(p, "~/") {
			d.fail(yamlnode.Resolve(n).Content[i], fmt.Sprintf("%s[%d]", key, i), "%q: want an absolute path or one under ~/", p)
		}
	}
	return ps
}

func (d *decoder) git(n *yaml.Node, key string) Git {
	var g Git
	d.fields(n, key, map[string]func(*yaml.Node, string){
		"checkpoint": func(v *yaml.Node, k string) { g.Checkpoint = d.boolean(v, k) },
		"commit":     func(v *yaml.Node, k string) { g.Commit = d.boolean(v, k) },
		"push":       func(v *yaml.Node, k string) { g.Push = d.boolean(v, k) },
		"remote":     func(v *yaml.Node, k string) { g.Remote = d.str(v, k) },
		"branch":     func(v *yaml.Node, k string) { g.Branch = d.str(v, k) },
	})
	return g
}
