// Package yamlnode owns how agentloop's strict YAML readers (the configuration,
// the model double's scenarios) name what they read in a problem: the node
// behind an alias, what a node holds ("expected a list, got a mapping"), a
// key's dotted path, and the one form a problem is written in,
// file:line:col: key: what is wrong.
package yamlnode

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Resolve is the node an alias stands for (n itself when it is none; at most
// eight aliases deep, so a loop of them ends).
func Resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 8; i++ {
		n = n.Alias
	}
	return n
}

// Kind names what a node holds, for "expected …, got …": "a mapping", "a
// list", "nothing", "a boolean (true)", "a number (3)" or the quoted string.
func Kind(n *yaml.Node) string {
	n = Resolve(n)
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "nothing"
		case "!!bool":
			return "a boolean (" + n.Value + ")"
		case "!!int", "!!float":
			return "a number (" + n.Value + ")"
		}
		return strconv.Quote(n.Value)
	}
	return "something else"
}

// Path is the dotted path of the key k under prefix ("" at the top).
func Path(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// Problem writes a problem at a place: "where:line:col: key: msg", without the
// line and column when line is 0 and without the key when key is "".
func Problem(where string, line, col int, key, msg string) string {
	pos := where
	if line > 0 {
		pos = fmt.Sprintf("%s:%d:%d", where, line, col)
	}
	if key != "" {
		return fmt.Sprintf("%s: %s: %s", pos, key, msg)
	}
	return fmt.Sprintf("%s: %s", pos, msg)
}
