package config

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/yamlnode"
)

// notify decodes the notify: section. A receiver (webhook, slack, ntfy) is a
// URL, a mapping {url | url_env, secret_env, token_env}, or a list of them; an
// ntfy topic may be named alone (ntfy.sh's). The event names are checked
// against the notify package's list.
func (d *decoder) notify(n *yaml.Node, key string) target.Config {
	var c target.Config
	d.fields(n, key, map[string]func(*yaml.Node, string){
		"webhook": func(v *yaml.Node, k string) { c.Webhooks = d.endpoints(v, k, "webhook") },
		"slack":   func(v *yaml.Node, k string) { c.Slack = d.endpoints(v, k, "slack") },
		"ntfy":    func(v *yaml.Node, k string) { c.Ntfy = d.endpoints(v, k, "ntfy") },
		"command": func(v *yaml.Node, k string) {
			cmd := d.command(v, k)
			if len(cmd.Argv) > 0 {
				c.Commands = [][]string{cmd.Argv}
			} else if cmd.Shell != "" {
				c.Commands = [][]string{target.ShellCommand(cmd.Shell)}
			}
		},
		"desktop": func(v *yaml.Node, k string) { c.Desktop = d.boolean(v, k) },
		"events": func(v *yaml.Node, k string) {
			for i, s := range d.strings(v, k) {
				if !slices.Contains(target.Kinds(), s) {
					d.unknown(yamlnode.Resolve(v).Content[i], fmt.Sprintf("%s[%d]", k, i), "notification event", s, target.Kinds())
					continue
				}
				c.Events = append(c.Events, target.Kind(s))
			}
		},
		"rate_limit_after": func(v *yaml.Node, k string) { c.RateLimitAfter = d.duration(v, k) },
		"timeout":          func(v *yaml.Node, k string) { c.Timeout = d.duration(v, k) },
		"retries":          func(v *yaml.Node, k string) { c.Retries = d.count(v, k) },
	})
	return c
}

// endpoints decodes one receiver of a kind (webhook, slack, ntfy) or a list
// of them.
func (d *decoder) endpoints(n *yaml.Node, key, kind string) []target.Endpoint {
	r := yamlnode.Resolve(n)
	if r != nil && r.Kind == yaml.SequenceNode {
		if !d.spend(n, 1+len(r.Content)) {
			return nil
		}
		var out []target.Endpoint
		for i, c := range r.Content {
			out = append(out, d.endpoint(c, fmt.Sprintf("%s[%d]", key, i), kind))
		}
		return out
	}
	return []target.Endpoint{d.endpoint(n, key, kind)}
}

// endpoint decodes a URL, or a mapping {url | url_env} with, for a webhook,
// secret_env and, for ntfy, token_env.
func (d *decoder) endpoint(n *yaml.Node, key, kind string) target.Endpoint {
	var e target.Endpoint
	if r := yamlnode.Resolve(n); r != nil && r.Kind == yaml.ScalarNode {
		e.URL = d.url(n, key, kind)
		return e
	}
	hasURL := false
	fs := map[string]func(*yaml.Node, string){
		"url":     func(v *yaml.Node, k string) { e.URL, hasURL = d.url(v, k, kind), true },
		"url_env": func(v *yaml.Node, k string) { e.URLEnv = d.str(v, k) },
	}
	switch kind {
	case "webhook":
		fs["secret_env"] = func(v *yaml.Node, k string) { e.SecretEnv = d.str(v, k) }
	case "ntfy":
		fs["token_env"] = func(v *yaml.Node, k string) { e.TokenEnv = d.str(v, k) }
	}
	d.fields(n, key, fs)
	if r := yamlnode.Resolve(n); r != nil && r.Kind == yaml.MappingNode && hasURL == (e.URLEnv != "") {
		d.fail(n, key, "give url (the receiver's URL) or url_env (the variable holding it), one of them")
	}
	return e
}

// url decodes a receiver's URL; an ntfy topic named alone is ntfy.sh's.
func (d *decoder) url(n *yaml.Node, key, kind string) string {
	s := d.str(n, key)
	if kind == "ntfy" {
		s = target.NtfyURL(s)
	}
	if err := target.CheckURL(s); err != nil {
		d.fail(n, key, "%v", err)
		return ""
	}
	return s
}
