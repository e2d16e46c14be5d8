package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/ledger"
	"github.com/agentloop/agentloop/internal/yamlnode"
)

// Budgets is the budgets: section of the user's configuration: the caps on
// what every loop of the user spends together, kept in one ledger. It is read
// from the user's configuration only (a workspace cannot raise the caps that
// cover every other workspace); --daily-cap, --weekly-cap and --monthly-cap
// override its total caps.
type Budgets struct {
	// On: the user's loops keep their spend in the ledger: by default (see
	// [Load]), unless budgets: {ledger: off}; every loop then reserves in
	// the ledger and settles what it spent. Caps stay opt-in.
	On bool
	// Given: a budgets: section (other than ledger: off) or a cap flag was
	// given. The Temporal engine's runs share their spend (in its ledger
	// workflow) only then.
	Given bool
	// Ledger is the ledger file; see [Budgets.LedgerPath] for the default.
	Ledger string
	Caps   []ledger.Cap
	// FirstIterationUSD is what a loop's first iteration reserves when the
	// ledger holds no iteration of its provider yet (0: not given; see
	// [ledger.FirstUSD]).
	FirstIterationUSD float64
}

// LedgerPath is the ledger file: budgets.ledger, else
// $XDG_STATE_HOME/agentloop/ledger.jsonl, else
// ~/.local/state/agentloop/ledger.jsonl; "" when none can be found ($HOME not
// set).
func (b Budgets) LedgerPath(getenv func(string) string) string {
	if b.Ledger != "" {
		return b.Ledger
	}
	return DefaultLedgerPath(getenv)
}

// DefaultLedgerPath is where the ledger is when the configuration does not
// say: $XDG_STATE_HOME/agentloop/ledger.jsonl, else
// ~/.local/state/agentloop/ledger.jsonl.
func DefaultLedgerPath(getenv func(string) string) string {
	if x := getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "agentloop", ledger.FileName)
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "agentloop", ledger.FileName)
	}
	return ""
}

// Cap is the cap named name, if there is one.
func (b Budgets) Cap(name string) (ledger.Cap, bool) {
	for _, c := range b.Caps {
		if c.Name == name {
			return c, true
		}
	}
	return ledger.Cap{}, false
}

// budgets decodes the budgets: section; only the user's configuration may
// hold one.
func (d *decoder) budgets(n *yaml.Node, key string) Budgets {
	b := Budgets{On: true, Given: true}
	if o := d.at[n]; o.tier == "workspace" {
		d.fail(n, key, "this section belongs in your own configuration ($XDG_CONFIG_HOME/agentloop/config.yaml, else ~/.config/agentloop/config.yaml): its caps cover every loop you run, so one workspace cannot change them; move the section there")
		return Budgets{}
	}
	if isNull(n) {
		return b
	}
	var off *yaml.Node // ledger: off
	d.fields(n, key, map[string]func(*yaml.Node, string){
		"ledger": func(v *yaml.Node, k string) {
			if r := yamlnode.Resolve(v); r != nil && r.Kind == yaml.ScalarNode {
				switch {
				case r.Value == "off" || r.ShortTag() == "!!bool" && r.Value == "false":
					off = v
					return
				case r.Value == "on" || r.ShortTag() == "!!bool":
					d.fail(v, k, "the ledger is kept by default: give its file path, or off to keep none")
					return
				}
			}
			p := d.str(v, k)
			if rest, ok := strings.CutPrefix(p, "~/"); ok {
				p = filepath.Join("~", rest) // expanded where HOME is known
			}
			if o := d.at[v]; p != "" && !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") && o.dir != "" {
				p = filepath.Join(o.dir, p)
			}
			b.Ledger = p
		},
		"first_iteration_usd": func(v *yaml.Node, k string) {
			errs := len(d.errs)
			if b.FirstIterationUSD = d.float(v, k); b.FirstIterationUSD == 0 && len(d.errs) == errs {
				d.fail(v, k, "a first iteration must reserve more than 0 (leave first_iteration_usd out for the default: a tenth of the tightest cap, at most $%.2f)", ledger.DefaultFirstUSD)
			}
		},
		"caps": func(v *yaml.Node, k string) {
			r := yamlnode.Resolve(v)
			if r == nil || r.Kind != yaml.SequenceNode {
				d.fail(v, k, "expected a list of caps, got %s", yamlnode.Kind(v))
				return
			}
			if !d.spend(v, 1+len(r.Content)) {
				return
			}
			names := map[string]bool{}
			for i, c := range r.Content {
				ck := fmt.Sprintf("%s[%d]", k, i)
				cp := d.capOf(c, ck)
				if names[cp.Name] && keyNode(c, "period") != c {
					d.fail(c, ck, "a second cap named %q: give each cap its own name:", cp.Name)
				}
				names[cp.Name] = true
				b.Caps = append(b.Caps, cp)
			}
		},
	})
	if off != nil {
		if len(b.Caps) > 0 || b.FirstIterationUSD > 0 {
			d.fail(off, key+".ledger", "caps and first_iteration_usd need the ledger: remove ledger: off, or them")
		}
		return Budgets{}
	}
	return b
}

func (d *decoder) capOf(n *yaml.Node, key string) ledger.Cap {
	var c ledger.Cap
	d.fields(n, key, map[string]func(*yaml.Node, string){
		"name":          func(v *yaml.Node, k string) { c.Name = d.str(v, k) },
		"period":        func(v *yaml.Node, k string) { c.Period = ledger.Period(d.oneOf(v, k, ledger.Periods()...)) },
		"provider":      func(v *yaml.Node, k string) { c.Provider = d.named(v, k, "agent preset", presetKnown, agent.Names()) },
		"account":       func(v *yaml.Node, k string) { c.Account = d.str(v, k) },
		"model":         func(v *yaml.Node, k string) { c.Model = d.str(v, k) },
		"max_cost_usd":  func(v *yaml.Node, k string) { c.MaxCostUSD = d.float(v, k) },
		"soft_cost_usd": func(v *yaml.Node, k string) { c.SoftCostUSD = d.float(v, k) },
		"max_tokens":    func(v *yaml.Node, k string) { c.MaxTokens = d.integer(v, k) },
		"soft_tokens":   func(v *yaml.Node, k string) { c.SoftTokens = d.integer(v, k) },
	})
	if c.Period == "" {
		c.Period = ledger.Day
		if keyNode(n, "period") == n {
			d.fail(n, key, "a cap needs period: day, week or month")
		}
	}
	if err := c.Validate(); err != nil && c.Period != "" {
		for _, e := range strings.Split(err.Error(), "\n") {
			if !strings.Contains(e, "period") {
				d.fail(n, key, "%s", e)
			}
		}
	}
	if c.Name == "" {
		c.Name = c.DefaultName()
	}
	return c
}

// presetKnown reports whether name is a provider: a built-in preset, or
// "command" (an agent given as a command).
func presetKnown(name string) bool {
	_, err := agent.Lookup(name)
	return err == nil || name == "command"
}

// withCapFlags applies --daily-cap, --weekly-cap and --monthly-cap: each
// replaces the hard cost limit of the total cap of its period (made when
// there is none; 0 takes the hard limit away) and turns the ledger on, even
// when the configuration turned it off.
func withCapFlags(b Budgets, f Overrides) Budgets {
	for _, fl := range []struct {
		p   ledger.Period
		usd *float64
	}{{ledger.Day, f.DailyCap}, {ledger.Week, f.WeeklyCap}, {ledger.Month, f.MonthlyCap}} {
		if fl.usd == nil {
			continue
		}
		b.On, b.Given = true, true
		caps := make([]ledger.Cap, 0, len(b.Caps)+1)
		found := false
		for _, c := range b.Caps {
			if c.Period == fl.p && c.Provider == "" && c.Account == "" && c.Model == "" {
				c.MaxCostUSD, found = *fl.usd, true
				if c.SoftCostUSD > c.MaxCostUSD {
					c.SoftCostUSD = 0
				}
			}
			if c.Validate() == nil {
				caps = append(caps, c)
			}
		}
		if !found && *fl.usd > 0 {
			c := ledger.Cap{Period: fl.p, MaxCostUSD: *fl.usd}
			c.Name = c.DefaultName()
			caps = append(caps, c)
		}
		b.Caps = caps
	}
	return b
}
