package config

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// origin is the tier and place a node came from.
type origin struct {
	tier string // built-in, global, workspace, env, flag
	name string // file path, variable or flag; empty for built-in
	file bool   // the node has meaningful line and column
	dir  string // relative prompt paths are joined to this; empty: the work dir
}

// where names the place for an error message.
func (o origin) where() string {
	switch {
	case o.file:
		return o.name
	case o.name != "":
		return o.tier + " " + o.name
	default:
		return o.tier
	}
}

// from names the place for a [Source], with the line of n.
func (o origin) from(n *yaml.Node) string {
	switch {
	case o.file:
		return fmt.Sprintf("%s %s:%d", o.tier, o.name, n.Line)
	case o.name != "":
		return o.tier + " " + o.name
	default:
		return o.tier
	}
}

// origins maps every node of the loaded layers to where it came from.
type origins map[*yaml.Node]origin

// register records o for n and everything under it (each node once: an alias
// graph is walked as the DAG it is, never expanded).
func (m origins) register(n *yaml.Node, o origin) {
	if n == nil {
		return
	}
	if _, seen := m[n]; seen {
		return
	}
	m[n] = o
	for _, c := range n.Content {
		m.register(c, o)
	}
	m.register(n.Alias, o)
}

// decoder turns nodes into values, collecting every problem with its place.
type decoder struct {
	at     origins
	errs   []error
	work   int  // keys and items decoded, aliases expanded
	tooBig bool // work went over maxWork: decoding stopped
}

// maxWork bounds the decoding of one configuration, so that aliases that
// expand exponentially ("billion laughs") end in an error, not in memory
// exhaustion. Real configurations need a few hundred.
const maxWork = 200_000

// spend counts k units of work at n; false when the budget is gone.
func (d *decoder) spend(n *yaml.Node, k int) bool {
	d.work += k
	if d.work <= maxWork {
		return true
	}
	if !d.tooBig {
		d.tooBig = true
		d.fail(n, "", "the configuration expands to more than %d keys and items (through aliases?); simplify it", maxWork)
	}
	return false
}

func (d *decoder) fail(n *yaml.Node, key, format string, args ...any) {
	o := d.at[n]
	e := &Error{Where: o.where(), Key: key, Msg: fmt.Sprintf(format, args...)}
	if o.file && n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	if e.Where == "" {
		e.Where = "configuration"
	}
	d.errs = append(d.errs, e)
}

func isNull(n *yaml.Node) bool {
	n = yamlnode.Resolve(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

func (d *decoder) str(n *yaml.Node, key string) string {
	r := yamlnode.Resolve(n)
	if r == nil || r.Kind != yaml.ScalarNode || r.ShortTag() == "!!null" {
		d.fail(n, key, "expected a string, got %s", yamlnode.Kind(n))
		return ""
	}
	return r.Value
}

// oneOf decodes a string that must be one of allowed.
func (d *decoder) oneOf(n *yaml.Node, key string, allowed ...string) string {
	s := d.str(n, key)
	if s != "" && !slices.Contains(allowed, s) {
		d.fail(n, key, "expected one of %s, got %q", strings.Join(allowed, ", "), s)
	}
	return s
}

// named decodes a name that its owner must know (a gate's output format from
// gate, an agent's from agent, an escalation class from decision): known says
// whether it does, names are what the error offers. An empty string is left
// for the caller's default.
func (d *decoder) named(n *yaml.Node, key, what string, known func(string) bool, names []string) string {
	s := d.str(n, key)
	if s != "" && !known(s) {
		d.unknown(n, key, what, s, names)
	}
	return s
}

// unknown reports that s is not one of names: the closest one when a typo
// explains it, else the whole list.
func (d *decoder) unknown(n *yaml.Node, key, what, s string, names []string) {
	if near := suggest.Closest(s, names); near != "" {
		d.fail(n, key, "unknown %s %q; did you mean %q?", what, s, near)
		return
	}
	d.fail(n, key, "unknown %s %q; expected one of %s", what, s, strings.Join(names, ", "))
}

func (d *decoder) integer(n *yaml.Node, key string) int64 {
	r := yamlnode.Resolve(n)
	if r != nil && r.Kind == yaml.ScalarNode && r.ShortTag() == "!!int" {
		v, err := strconv.ParseInt(strings.ReplaceAll(r.Value, "_", ""), 0, 64)
		if err == nil && v >= 0 {
			return v
		}
	}
	d.fail(n, key, "expected a whole number ≥ 0, got %s", yamlnode.Kind(n))
	return 0
}

func (d *decoder) count(n *yaml.Node, key string) int {
	v := d.integer(n, key)
	if v > math.MaxInt32 {
		d.fail(n, key, "expected a number below %d, got %d", math.MaxInt32, v)
		return 0
	}
	return int(v)
}

func (d *decoder) float(n *yaml.Node, key string) float64 {
	r := yamlnode.Resolve(n)
	if r != nil && r.Kind == yaml.ScalarNode && (r.ShortTag() == "!!int" || r.ShortTag() == "!!float") {
		v, err := strconv.ParseFloat(strings.ReplaceAll(r.Value, "_", ""), 64)
		if err == nil && v >= 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			return v
		}
	}
	d.fail(n, key, "expected a number ≥ 0, got %s", yamlnode.Kind(n))
	return 0
}

func (d *decoder) boolean(n *yaml.Node, key string) bool {
	r := yamlnode.Resolve(n)
	if r != nil && r.Kind == yaml.ScalarNode && r.ShortTag() == "!!bool" {
		v, err := strconv.ParseBool(strings.ToLower(r.Value))
		if err == nil {
			return v
		}
	}
	d.fail(n, key, "expected true or false, got %s", yamlnode.Kind(n))
	return false
}

func (d *decoder) duration(n *yaml.Node, key string) time.Duration {
	r := yamlnode.Resolve(n)
	if r != nil && r.Kind == yaml.ScalarNode {
		if r.Value == "0" {
			return 0
		}
		v, err := time.ParseDuration(r.Value)
		if err == nil && v >= 0 {
			return v
		}
	}
	d.fail(n, key, `expected a duration like "90s", "30m" or "1h30m", got %s`, yamlnode.Kind(n))
	return 0
}

func (d *decoder) strings(n *yaml.Node, key string) []string {
	r := yamlnode.Resolve(n)
	if r == nil || r.Kind != yaml.SequenceNode {
		d.fail(n, key, "expected a list of strings, got %s", yamlnode.Kind(n))
		return nil
	}
	if !d.spend(n, 1+len(r.Content)) {
		return nil
	}
	out := make([]string, 0, len(r.Content))
	for i, c := range r.Content {
		out = append(out, d.str(c, fmt.Sprintf("%s[%d]", key, i)))
	}
	return out
}

func (d *decoder) strMap(n *yaml.Node, key string) map[string]string {
	out := map[string]string{}
	d.mapping(n, key, func(k string, v *yaml.Node) { out[k] = d.str(v, key+"."+k) })
	return out
}

// mapping calls f for each key of a mapping with arbitrary keys.
func (d *decoder) mapping(n *yaml.Node, key string, f func(k string, v *yaml.Node)) {
	r := yamlnode.Resolve(n)
	if isNull(r) {
		return
	}
	if r.Kind != yaml.MappingNode {
		d.fail(n, key, "expected a mapping, got %s", yamlnode.Kind(n))
		return
	}
	if !d.spend(n, 1+len(r.Content)/2) {
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(r.Content); i += 2 {
		kn, vn := r.Content[i], r.Content[i+1]
		if kn.ShortTag() == "!!merge" {
			d.fail(kn, key, "merge keys (<<) are not supported; put shared settings under defaults:")
			continue
		}
		k := yamlnode.Resolve(kn)
		if k == nil || k.Kind != yaml.ScalarNode {
			d.fail(kn, key, "expected a string key, got %s", yamlnode.Kind(kn))
			continue
		}
		if seen[k.Value] {
			d.fail(kn, key, "key %q appears twice; keep one", k.Value)
			continue
		}
		seen[k.Value] = true
		f(k.Value, vn)
	}
}

// fields decodes a mapping with a fixed set of keys; an unknown key is an error
// that lists the known ones.
func (d *decoder) fields(n *yaml.Node, key string, fs map[string]func(v *yaml.Node, key string)) {
	d.mapping(n, key, func(k string, v *yaml.Node) {
		f, ok := fs[k]
		if !ok {
			d.unknown(keyNode(n, k), key, "key", k, slices.Sorted(maps.Keys(fs)))
			return
		}
		if isNull(v) {
			return // an empty value leaves the field unset
		}
		f(v, yamlnode.Path(key, k))
	})
}

// keyNode returns the key node named k in mapping n, for its position.
func keyNode(n *yaml.Node, k string) *yaml.Node {
	r := yamlnode.Resolve(n)
	for i := 0; r != nil && i+1 < len(r.Content); i += 2 {
		if r.Content[i].Value == k {
			return r.Content[i]
		}
	}
	return n
}
