package config

import (
	"net"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/prompt"
	"github.com/agentloop/agentloop/internal/runname"
	"github.com/agentloop/agentloop/internal/yamlnode"
)

// Allowed values of the enumerated fields.
var (
	promptVias = []string{"stdin", "arg", "file"}
	logFormats = []string{"text", "json"}
)

// top is one file's top level, with the procedure-shaped parts kept as nodes
// for the merge.
type top struct {
	Default    string
	StateDir   string
	LogFormat  string
	KeepAwake  bool
	Agents     map[string]AgentSpec
	Prices     map[string]Price
	Temporal   Temporal
	Notify     target.Config
	Budgets    Budgets
	Issues     Issues
	Defaults   *yaml.Node
	Procedures map[string]*yaml.Node
	Order      []string // procedure names in file order
}

func (d *decoder) top(n *yaml.Node) top {
	t := top{Agents: map[string]AgentSpec{}, Prices: map[string]Price{}, Procedures: map[string]*yaml.Node{},
		Budgets: Budgets{On: true}, Issues: Issues{Labels: DefaultIssueLabels, Caps: DefaultIssueCaps}} // the ledger is kept unless budgets: {ledger: off}
	d.fields(n, "", map[string]func(*yaml.Node, string){
		"default":    func(v *yaml.Node, k string) { t.Default = d.str(v, k) },
		"state_dir":  func(v *yaml.Node, k string) { t.StateDir = d.str(v, k) },
		"log_format": func(v *yaml.Node, k string) { t.LogFormat = d.oneOf(v, k, logFormats...) },
		"keep_awake": func(v *yaml.Node, k string) { t.KeepAwake = d.boolean(v, k) },
		"agents": func(v *yaml.Node, k string) {
			d.mapping(v, k, func(name string, a *yaml.Node) { t.Agents[name] = d.agentSpec(a, k+"."+name) })
		},
		"prices": func(v *yaml.Node, k string) {
			d.mapping(v, k, func(model string, p *yaml.Node) { t.Prices[model] = d.price(p, k+"."+model) })
		},
		"temporal": func(v *yaml.Node, k string) { t.Temporal = d.temporal(v, k) },
		"notify":   func(v *yaml.Node, k string) { t.Notify = d.notify(v, k) },
		"budgets":  func(v *yaml.Node, k string) { t.Budgets = d.budgets(v, k) },
		"issues":   func(v *yaml.Node, k string) { t.Issues = d.issues(v, k) },
		"defaults": func(v *yaml.Node, k string) {
			t.Defaults = v
			d.procedure(v, k) // validate now, with positions
		},
		"procedures": func(v *yaml.Node, k string) {
			d.mapping(v, k, func(name string, p *yaml.Node) {
				if err := runname.Check(name); err != nil {
					d.fail(keyNode(v, name), k, "%v", err)
				}
				t.Procedures[name] = p
				t.Order = append(t.Order, name)
				d.procedure(p, k+"."+name)
			})
		},
	})
	return t
}

// temporal decodes the temporal: section; the address must be host:port, the
// heartbeat timeout a duration.
func (d *decoder) temporal(n *yaml.Node, key string) Temporal {
	var t Temporal
	d.fields(n, key, map[string]func(*yaml.Node, string){
		"address": func(v *yaml.Node, k string) {
			t.Address = d.str(v, k)
			if _, port, err := net.SplitHostPort(t.Address); t.Address != "" && (err != nil || port == "") {
				d.fail(v, k, "%q is not host:port (e.g. 127.0.0.1:7233)", t.Address)
			}
		},
		"namespace":         func(v *yaml.Node, k string) { t.Namespace = d.str(v, k) },
		"task_queue":        func(v *yaml.Node, k string) { t.TaskQueue = d.str(v, k) },
		"heartbeat_timeout": func(v *yaml.Node, k string) { t.HeartbeatTimeout = d.duration(v, k) },
	})
	return t
}

func (d *decoder) procedure(n *yaml.Node, key string) Procedure {
	p := Procedure{Baseline: true}
	d.fields(n, key, map[string]func(*yaml.Node, string){
		"description": func(v *yaml.Node, k string) { p.Description = d.str(v, k) },
		"prompt":      func(v *yaml.Node, k string) { p.Prompt = d.prompt(v, k) },
		"agent":       func(v *yaml.Node, k string) { p.Agent = d.agentRef(v, k) },
		"fallback":    func(v *yaml.Node, k string) { p.Fallback = d.strings(v, k) },
		"gates":       func(v *yaml.Node, k string) { p.Gates = d.gates(v, k) },
		"reviewer":    func(v *yaml.Node, k string) { p.Reviewer = d.reviewer(v, k) },
		"limits":      func(v *yaml.Node, k string) { p.Limits = d.limits(v, k) },
		"feedback": func(v *yaml.Node, k string) {
			d.fields(v, k, map[string]func(*yaml.Node, string){
				"max_length": func(v *yaml.Node, k string) { p.Feedback.MaxLength = d.count(v, k) },
			})
		},
		"baseline":   func(v *yaml.Node, k string) { p.Baseline = d.boolean(v, k) },
		"escalation": func(v *yaml.Node, k string) { p.Escalation = d.escalation(v, k) },
		"policy":     func(v *yaml.Node, k string) { p.Policy = d.policy(v, k) },
		"git":        func(v *yaml.Node, k string) { p.Git = d.git(v, k) },
		"sandbox":    func(v *yaml.Node, k string) { p.Sandbox = d.procSandbox(v, k) },
		"completion_marker": func(v *yaml.Node, k string) {
			p.CompletionMarker = d.str(v, k)
		},
	})
	return p
}

func (d *decoder) prompt(n *yaml.Node, key string) prompt.Parts {
	var p prompt.Parts
	part := func(dst *prompt.Part) func(*yaml.Node, string) {
		return func(v *yaml.Node, k string) { *dst = d.part(v, k) }
	}
	d.fields(n, key, map[string]func(*yaml.Node, string){
		"preamble": part(&p.Preamble),
		"observe":  part(&p.Observe),
		"orient":   part(&p.Orient),
		"decide":   part(&p.Decide),
		"act":      part(&p.Act),
		"context":  func(v *yaml.Node, k string) { p.Context = d.strings(v, k) },
	})
	return p
}

// part decodes a prompt part. A string with a newline is inline text; any
// other string is a file path (relative to the directory of the file that
// names it), or "builtin:NAME/PHASE.md"; {text: …} and {file: …} say which
// explicitly.
func (d *decoder) part(n *yaml.Node, key string) prompt.Part {
	r := yamlnode.Resolve(n)
	if r != nil && r.Kind == yaml.MappingNode {
		var p prompt.Part
		d.fields(n, key, map[string]func(*yaml.Node, string){
			"text": func(v *yaml.Node, k string) { p.Text = d.str(v, k) },
			"file": func(v *yaml.Node, k string) { p.File = d.path(v, k) },
		})
		if p.File != "" && p.Text != "" {
			d.fail(n, key, "set text or file, not both")
		}
		return p
	}
	s := d.str(n, key)
	if strings.Contains(s, "\n") {
		return prompt.Part{Text: s}
	}
	if strings.TrimSpace(s) == "" {
		d.fail(n, key, "expected a file path or text, got an empty string")
		return prompt.Part{}
	}
	return prompt.Part{File: d.path(n, key)}
}

// path decodes a file path, made relative to the directory of its file.
func (d *decoder) path(n *yaml.Node, key string) string {
	s := d.str(n, key)
	if s == "" || strings.HasPrefix(s, prompt.BuiltinPrefix) || filepath.IsAbs(s) {
		return s
	}
	if dir := d.at[n].dir; dir != "" {
		return filepath.Join(dir, s)
	}
	return s
}

func (d *decoder) command(n *yaml.Node, key string) Command {
	r := yamlnode.Resolve(n)
	if r != nil && r.Kind == yaml.SequenceNode {
		argv := d.strings(n, key)
		if len(argv) == 0 || argv[0] == "" {
			d.fail(n, key, "expected a command: a non-empty list [program, args…] or a shell string")
		}
		return Command{Argv: argv}
	}
	if r == nil || r.Kind != yaml.ScalarNode || r.ShortTag() == "!!null" {
		d.fail(n, key, "expected a command: a shell string or a list [program, args…], got %s", yamlnode.Kind(n))
		return Command{}
	}
	if strings.TrimSpace(r.Value) == "" {
		d.fail(n, key, "expected a command, got an empty string")
	}
	return Command{Shell: r.Value}
}

func (d *decoder) agentSpec(n *yaml.Node, key string) AgentSpec {
	var a AgentSpec
	d.fields(n, key, map[string]func(*yaml.Node, string){
		"preset":     func(v *yaml.Node, k string) { a.Preset = d.str(v, k) },
		"cmd":        func(v *yaml.Node, k string) { a.Cmd = d.command(v, k) },
		"args":       func(v *yaml.Node, k string) { a.Args = d.strings(v, k) },
		"extra_args": func(v *yaml.Node, k string) { a.ExtraArgs = d.strings(v, k) },
		"env":        func(v *yaml.Node, k string) { a.Env = d.strMap(v, k) },
		"prompt_via": func(v *yaml.Node, k string) { a.PromptVia = d.oneOf(v, k, promptVias...) },
		"format": func(v *yaml.Node, k string) {
			a.Format = d.named(v, k, "agent output format", func(s string) bool { return slices.Contains(agent.Formats(), s) }, agent.Formats())
		},
		"sandbox": func(v *yaml.Node, k string) { a.Sandbox = d.agentSandbox(v, k) },
	})
	return a
}

// agentRef decodes `agent: NAME` or an inline agent mapping.
func (d *decoder) agentRef(n *yaml.Node, key string) AgentRef {
	r := yamlnode.Resolve(n)
	if r != nil && r.Kind == yaml.MappingNode {
		a := d.agentSpec(n, key)
		if a.Preset == "" && a.Cmd.IsZero() {
			d.fail(n, key, "an inline agent needs cmd (the program to run) or preset (e.g. claude)")
		}
		return AgentRef{Spec: a}
	}
	if r != nil && r.Kind == yaml.SequenceNode {
		d.fail(n, key, "expected an agent name or a mapping {cmd: [...], prompt_via: stdin}, got a list; write it as {cmd: [...]}")
		return AgentRef{}
	}
	return AgentRef{Name: d.str(n, key)}
}

func (d *decoder) price(n *yaml.Node, key string) Price {
	var p Price
	d.fields(n, key, map[string]func(*yaml.Node, string){
		"input":       func(v *yaml.Node, k string) { p.Input = d.float(v, k) },
		"output":      func(v *yaml.Node, k string) { p.Output = d.float(v, k) },
		"cache_read":  func(v *yaml.Node, k string) { p.CacheRead = d.float(v, k) },
		"cache_write": func(v *yaml.Node, k string) { p.CacheWrite = d.float(v, k) },
	})
	return p
}

// policy decodes the free-form policy mapping (yaml's own decoder bounds
// alias expansion).
func (d *decoder) policy(n *yaml.Node, key string) map[string]any {
	if r := yamlnode.Resolve(n); r == nil || r.Kind != yaml.MappingNode {
		d.fail(n, key, "expected a mapping, got %s", yamlnode.Kind(n))
		return nil
	}
	m := map[string]any{}
	if err := n.Decode(&m); err != nil {
		d.fail(n, key, "%v", err)
	}
	return m
}
