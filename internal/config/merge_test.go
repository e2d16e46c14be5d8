package config

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestMerge is the tier merge on its own: later layers win key by key.
func TestMerge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		layers []string
		want   string
	}{
		{"later scalar wins", []string{"limits: {max_iterations: 3}", "limits: {max_iterations: 5}"}, "limits: {max_iterations: 5}"},
		{"mappings merge key by key", []string{"limits: {max_iterations: 3, timeout: 1h}", "limits: {failure_threshold: 2}"},
			"limits: {max_iterations: 3, timeout: 1h, failure_threshold: 2}"},
		{"empty value leaves the lower tier", []string{"limits: {max_iterations: 3}", "limits: {max_iterations: null}", "limits:"}, "limits: {max_iterations: 3}"},
		{"zero is a value", []string{"limits: {max_iterations: 3}", "limits: {max_iterations: 0}"}, "limits: {max_iterations: 0}"},
		{"lists replace", []string{"gates: [a, b]", "gates: [c]"}, "gates: [c]"},
		{"agent replaces whole", []string{"agent: {cmd: x, prompt_via: arg}", "agent: {cmd: y}"}, "agent: {cmd: y}"},
		{"name replaces inline agent", []string{"agent: {cmd: x}", "agent: claude"}, "agent: claude"},
		{"prompt parts replace whole", []string{"prompt: {observe: {file: a.md}, act: b.md}", "prompt: {observe: {text: hi}}"},
			"prompt: {observe: {text: hi}, act: b.md}"},
		{"reviewer shorthand merges", []string{"reviewer: codex", "reviewer: {max_rounds: 2}"}, "reviewer: {agent: codex, max_rounds: 2}"},
		{"policy replaces whole", []string{"policy: {a: 1, b: 2}", "policy: {a: 3}"}, "policy: {a: 3}"},
		{"deep env maps merge", []string{"agents: {x: {env: {A: '1'}}}", "agents: {x: {env: {B: '2'}}}"}, "agents: {x: {env: {A: '1', B: '2'}}}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got *yaml.Node
			for _, l := range tt.layers {
				got = merge(got, parseNode(t, l), "")
			}
			if g, w := flow(t, got), flow(t, parseNode(t, tt.want)); g != w {
				t.Errorf("merge(%q)\n got %s\nwant %s", tt.layers, g, w)
			}
		})
	}
}

func parseNode(t *testing.T, s string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

// flow renders a node in a canonical one-line form.
func flow(t *testing.T, n *yaml.Node) string {
	t.Helper()
	return strings.TrimSpace(render(n, 10))
}
