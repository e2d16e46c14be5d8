package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/yamlnode"
)

// WorkspaceFile is the workspace configuration's name in the work directory.
const WorkspaceFile = "agentloop.yaml"

// maxFileSize bounds a configuration file.
const maxFileSize = 1 << 20

// Options says where to look for configuration.
type Options struct {
	ConfigFile    string              // --config; default WorkDir/agentloop.yaml if it exists
	WorkDir       string              // the workspace
	Getenv        func(string) string // nil: os.Getenv
	UserConfigDir string              // the folder holding the global config.yaml; default $XDG_CONFIG_HOME/agentloop, else ~/.config/agentloop
	Flags         Overrides
	ReadFile      func(string) ([]byte, error) // nil: os.ReadFile
}

// layer is one configuration file, parsed.
type layer struct {
	root *yaml.Node
	top  top
	o    origin
}

// Load reads every tier and merges them: built-in defaults, the global file,
// the workspace file, AGENTLOOP_* variables ([EnvVars]), then flags. Problems
// are reported all at once, each with its place; such an error wraps
// [ErrInvalid].
func Load(o Options) (*Config, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.ReadFile == nil {
		o.ReadFile = os.ReadFile
	}
	at := origins{}
	var errs []error
	var layers []layer
	add := func(data []byte, og origin) {
		root, err := parse(data, og)
		if err != nil {
			errs = append(errs, err)
			return
		}
		at.register(root, og)
		layers = append(layers, layer{root: root, o: og})
	}
	add([]byte(builtinYAML()), origin{tier: "built-in"})
	for _, f := range files(o) {
		data, err := o.ReadFile(f.path)
		switch {
		case errors.Is(err, fs.ErrNotExist) && !f.must:
			continue
		case errors.Is(err, fs.ErrNotExist):
			errs = append(errs, &Error{Where: f.o.name, Msg: "no such file; check the --config path, or run 'agentloop init' to create agentloop.yaml"})
			continue
		case err != nil:
			errs = append(errs, &Error{Where: f.o.name, Msg: fmt.Sprintf("cannot read: %v", err)})
			continue
		case len(data) > maxFileSize:
			errs = append(errs, &Error{Where: f.o.name, Msg: fmt.Sprintf("file is larger than %d bytes", maxFileSize)})
			continue
		}
		add(data, f.o)
	}
	if o.Getenv("AGENTLOOP_AGENT") != "" && o.Getenv("AGENTLOOP_AGENT_CMD") != "" {
		errs = append(errs, &Error{Where: "env", Msg: "set AGENTLOOP_AGENT or AGENTLOOP_AGENT_CMD, not both"})
	}
	if o.Flags.Agent != nil && o.Flags.AgentCmd != nil {
		errs = append(errs, &Error{Where: "flags", Msg: "use --agent or --agent-cmd, not both"})
	}
	env, flags := envLayer(at, o.Getenv), flagLayer(at, o.Flags)

	d := &decoder{at: at}
	for i := range layers {
		layers[i].top = d.top(layers[i].root)
	}
	for _, l := range []*layerBuilder{env, flags} {
		d.top(l.top)
		d.procedure(l.proc, "")
	}
	if errs = append(errs, d.errs...); len(errs) > 0 {
		return nil, invalid(errs)
	}
	c, err := resolveAll(at, layers, env, flags, o.Flags.Context)
	if err != nil {
		return nil, err
	}
	for _, s := range o.Flags.Notify {
		if err := c.Notify.AddTarget(s); err != nil {
			errs = append(errs, &Error{Where: "flag --notify", Msg: err.Error()})
		}
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"--daily-cap", o.Flags.DailyCap}, {"--weekly-cap", o.Flags.WeeklyCap}, {"--monthly-cap", o.Flags.MonthlyCap}} {
		if f.v != nil && (*f.v < 0 || math.IsNaN(*f.v) || math.IsInf(*f.v, 0)) {
			errs = append(errs, &Error{Where: "flag " + f.name, Msg: fmt.Sprintf("expected an amount in USD ≥ 0, got %v", *f.v)})
		}
	}
	if len(errs) > 0 {
		return nil, invalid(errs)
	}
	c.Budgets = withCapFlags(c.Budgets, o.Flags)
	if rest, ok := strings.CutPrefix(c.Budgets.Ledger, "~"+string(filepath.Separator)); ok {
		c.Budgets.Ledger = filepath.Join(o.Getenv("HOME"), rest)
	}
	for _, l := range layers[1:] {
		c.Files = append(c.Files, l.o.path())
	}
	return c, nil
}

// resolveAll merges the tiers into a Config with every procedure resolved.
func resolveAll(at origins, layers []layer, env, flags *layerBuilder, context []string) (*Config, error) {
	d := &decoder{at: at}
	var topNode *yaml.Node
	for _, l := range layers {
		topNode = merge(topNode, without(l.root, "defaults", "procedures"), "")
	}
	topNode = merge(merge(topNode, env.top, ""), flags.top, "")
	t := d.top(topNode)
	c := &Config{
		StateDir: t.StateDir, LogFormat: t.LogFormat, KeepAwake: t.KeepAwake, Agents: t.Agents, Prices: t.Prices, Temporal: t.Temporal, Notify: t.Notify, Budgets: t.Budgets, Issues: t.Issues,
		procs: map[string]Procedure{}, sources: map[string][]Source{},
		// notify: is left out: its URLs can be secrets (a Slack webhook's path).
		top: at.sources(without(topNode, "agents", "prices", "notify"), "", nil),
	}
	names := map[string]bool{}
	for i, l := range layers {
		for _, n := range l.top.Order {
			names[n] = true
			if i > 0 && !slices.Contains(c.user, n) {
				c.user = append(c.user, n)
			}
		}
	}
	slices.Sort(c.user)
	for name := range names {
		if d.tooBig {
			break
		}
		var node *yaml.Node
		for _, l := range layers {
			node = merge(merge(node, l.top.Defaults, ""), l.top.Procedures[name], "")
		}
		node = merge(merge(node, env.proc, ""), flags.proc, "")
		node = appendContext(at, node, context)
		p := d.procedure(node, "procedures."+name)
		p.Name, p.Builtin = name, !slices.Contains(c.user, name)
		if p.Reviewer != nil && p.Reviewer.Agent.IsZero() {
			d.fail(valueNode(node, "reviewer"), "procedures."+name+".reviewer", "a reviewer needs agent: the agent that reviews (e.g. reviewer: {agent: codex})")
		}
		c.procs[name] = p
		c.sources[name] = at.sources(node, "", nil)
		for _, a := range agentNames(p) { // the agents it uses, field by field
			c.sources[name] = at.sources(lookup(lookup(topNode, "agents"), a), "agents."+a, c.sources[name])
		}
	}
	c.Default = t.Default
	switch {
	case c.Default != "":
		if _, ok := c.procs[c.Default]; !ok {
			d.fail(valueNode(topNode, "default"), "default", "no procedure named %q; known: %s", c.Default, strings.Join(c.Names(), ", "))
		}
	case len(c.user) == 1:
		c.Default = c.user[0]
	case len(c.user) == 0:
		c.Default = DefaultProcedure
	}
	if err := invalid(d.errs); err != nil {
		return nil, err
	}
	return c, nil
}

// valueNode returns the value of key k in mapping n, or n itself when absent
// (for an error's position).
func valueNode(n *yaml.Node, k string) *yaml.Node {
	if v := lookup(n, k); v != nil {
		return v
	}
	return n
}

// lookup returns the value of key k in mapping n, or nil.
func lookup(n *yaml.Node, k string) *yaml.Node {
	r := yamlnode.Resolve(n)
	if r == nil || r.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(r.Content); i += 2 {
		if r.Content[i].Value == k {
			return r.Content[i+1]
		}
	}
	return nil
}

// agentNames lists the configured agents a procedure refers to by name.
func agentNames(p Procedure) []string {
	names := []string{p.Agent.Name}
	if p.Reviewer != nil {
		names = append(names, p.Reviewer.Agent.Name)
	}
	names = append(names, p.Fallback...)
	var out []string
	for _, n := range names {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
