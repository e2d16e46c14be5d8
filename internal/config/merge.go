package config

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/textcut"
	"github.com/agentloop/agentloop/internal/yamlnode"
)

// whole are the procedure keys whose values replace each other as a whole
// instead of merging key by key.
var whole = map[string]bool{
	"agent": true, "reviewer.agent": true, "reviewer.prompt": true, "policy": true,
	"prompt.preamble": true, "prompt.observe": true, "prompt.orient": true,
	"prompt.decide": true, "prompt.act": true,
}

// merge layers src over dst: mappings merge key by key (recursively), anything
// else in src replaces dst, and an empty src value leaves dst as it is. Neither
// input is modified. merge is the one place tier precedence is decided.
func merge(dst, src *yaml.Node, path string) *yaml.Node {
	if isNull(src) {
		return dst
	}
	if isNull(dst) || whole[path] {
		return src
	}
	if path == "reviewer" { // reviewer: NAME is {agent: NAME}
		dst, src = wrap(dst, "agent"), wrap(src, "agent")
	}
	d, s := yamlnode.Resolve(dst), yamlnode.Resolve(src)
	if d.Kind != yaml.MappingNode || s.Kind != yaml.MappingNode {
		return src
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: s.Line, Column: s.Column}
	index := map[string]int{}
	for i := 0; i+1 < len(d.Content); i += 2 {
		index[d.Content[i].Value] = len(out.Content) + 1
		out.Content = append(out.Content, d.Content[i], d.Content[i+1])
	}
	for i := 0; i+1 < len(s.Content); i += 2 {
		k := s.Content[i].Value
		if j, ok := index[k]; ok {
			out.Content[j] = merge(out.Content[j], s.Content[i+1], yamlnode.Path(path, k))
			continue
		}
		if isNull(s.Content[i+1]) {
			continue
		}
		index[k] = len(out.Content) + 1
		out.Content = append(out.Content, s.Content[i], s.Content[i+1])
	}
	return out
}

// wrap returns a scalar n as the mapping {key: n}; anything else as it is.
func wrap(n *yaml.Node, key string) *yaml.Node {
	if r := yamlnode.Resolve(n); r == nil || r.Kind != yaml.ScalarNode {
		return n
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: n.Line, Column: n.Column}
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column, Content: []*yaml.Node{k, n}}
}

// without returns mapping n without the given top-level keys.
func without(n *yaml.Node, keys ...string) *yaml.Node {
	r := yamlnode.Resolve(n)
	if r == nil || r.Kind != yaml.MappingNode {
		return nil
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(r.Content); i += 2 {
		skip := false
		for _, k := range keys {
			skip = skip || r.Content[i].Value == k
		}
		if !skip {
			out.Content = append(out.Content, r.Content[i], r.Content[i+1])
		}
	}
	return out
}

// sources lists the leaves of a merged node with where each came from.
func (m origins) sources(n *yaml.Node, path string, out []Source) []Source {
	r := yamlnode.Resolve(n)
	if r == nil || isNull(r) {
		return out
	}
	if r.Kind == yaml.MappingNode && !whole[path] {
		for i := 0; i+1 < len(r.Content); i += 2 {
			out = m.sources(r.Content[i+1], yamlnode.Path(path, r.Content[i].Value), out)
		}
		return out
	}
	if r.Kind == yaml.SequenceNode && m.mixed(r) {
		for i, c := range r.Content {
			out = m.sources(c, fmt.Sprintf("%s[%d]", path, i), out)
		}
		return out
	}
	return append(out, Source{Key: path, Value: render(n, 3), From: m[n].from(n)})
}

// mixed reports whether the items of a sequence come from different places.
func (m origins) mixed(n *yaml.Node) bool {
	for _, c := range n.Content {
		if m[c] != m[n.Content[0]] {
			return true
		}
	}
	return false
}

// render shows a value on one short line (at most maxRender bytes, however
// large the value).
func render(n *yaml.Node, depth int) string {
	var b strings.Builder
	renderTo(&b, n, depth)
	return textcut.Bytes(b.String(), maxRender)
}

const maxRender = 120

func renderTo(b *strings.Builder, n *yaml.Node, depth int) {
	r := yamlnode.Resolve(n)
	switch {
	case r == nil:
	case b.Len() > maxRender:
		return
	case depth == 0:
		b.WriteString("…")
	case r.Kind == yaml.ScalarNode:
		s := r.Value
		if line, _, more := strings.Cut(s, "\n"); more {
			s = line + " …"
		}
		b.WriteString(s)
	case r.Kind == yaml.SequenceNode:
		b.WriteString("[")
		for i, c := range r.Content {
			if i > 0 {
				b.WriteString(", ")
			}
			renderTo(b, c, depth-1)
			if b.Len() > maxRender {
				return
			}
		}
		b.WriteString("]")
	case r.Kind == yaml.MappingNode:
		b.WriteString("{")
		for i := 0; i+1 < len(r.Content); i += 2 {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(r.Content[i].Value + ": ")
			renderTo(b, r.Content[i+1], depth-1)
			if b.Len() > maxRender {
				return
			}
		}
		b.WriteString("}")
	}
}
