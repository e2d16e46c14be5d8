package yamlnode

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ doc, want string }{
		{"a: {b: 1}", "a mapping"},
		{"a: [1]", "a list"},
		{"a:", "nothing"},
		{"a: null", "nothing"},
		{"a: yes", `"yes"`}, // YAML 1.2: only true and false are booleans
		{"a: true", "a boolean (true)"},
		{"a: 1.5", "a number (1.5)"},
		{"a: hi", `"hi"`},
		{"x: &x [1]\na: *x", "a list"}, // the alias's node
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(tc.doc), &doc); err != nil {
			t.Fatal(err)
		}
		m := doc.Content[0]
		a := m.Content[len(m.Content)-1]
		if got := Kind(a); got != tc.want {
			t.Errorf("Kind of a in %q = %s, want %s", tc.doc, got, tc.want)
		}
	}
	if got := Kind(nil); got != "nothing" {
		t.Errorf("Kind(nil) = %s, want nothing", got)
	}
}

func TestPathAndProblem(t *testing.T) {
	t.Parallel()
	if got := Path(Path("", "procedures"), "build"); got != "procedures.build" {
		t.Errorf("Path = %q", got)
	}
	for _, tc := range []struct {
		line, col int
		key, want string
	}{
		{3, 7, "turns[0]", "s.yaml:3:7: turns[0]: bad"},
		{0, 0, "turns", "s.yaml: turns: bad"},
		{3, 7, "", "s.yaml:3:7: bad"},
	} {
		if got := Problem("s.yaml", tc.line, tc.col, tc.key, "bad"); got != tc.want {
			t.Errorf("Problem(%d, %d, %q) = %q, want %q", tc.line, tc.col, tc.key, got, tc.want)
		}
	}
}
