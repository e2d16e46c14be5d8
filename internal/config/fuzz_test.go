package config

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary bytes as the workspace configuration: Load never
// panics, and every problem it reports has a place.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		"", "default: a\nprocedures:\n  a: {limits: {max_iterations: 3}}\n",
		"procedures:\n  a:\n    gates: [go test, {run: [a, b]}]\n    agent: {cmd: x}\n",
		"a: &a [1,2]\nb: [*a, *a]\n", "procedures: {a: {prompt: {observe: \"x\\ny\"}}}",
		"defaults: &d {baseline: true}\nprocedures:\n  a: *d\n", "- 1\n", "{", "procedures:\n  a: {policy: {x: [1, {y: 2}]}}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rf := fakeFS(map[string]string{"/ws/agentloop.yaml": string(data)})
		c, err := Load(Options{WorkDir: "/ws", UserConfigDir: "/g", Getenv: env(), ReadFile: rf})
		if err != nil {
			for _, p := range Problems(err) {
				if p.Where != "agentloop.yaml" || p.Line == 0 {
					t.Fatalf("problem without a place: %#v", p)
				}
			}
			if len(Problems(err)) == 0 {
				t.Fatalf("error without problems: %v", err)
			}
			return
		}
		for _, n := range c.Names() {
			if _, err := c.Procedure(n); err != nil {
				t.Fatalf("procedure %q listed but not found: %v", n, err)
			}
			for _, s := range c.Sources(n) {
				if s.From == "" || strings.TrimSpace(s.Key) == "" {
					t.Fatalf("source without origin: %+v", s)
				}
			}
		}
	})
}

// TestAliasBomb: aliases that would expand to billions of keys end in an
// error, quickly.
func TestAliasBomb(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("agents:\n  x:\n    preset: claude\n    env: &e {")
	for i := range 500 {
		fmt.Fprintf(&b, "k%d: v, ", i)
	}
	b.WriteString("z: v}\ndefaults:\n  gates: &gs [")
	for i := range 100 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("&g" + fmt.Sprint(i) + " {run: x, env: *e}")
	}
	b.WriteString("]\nprocedures:\n")
	for i := range 100 {
		fmt.Fprintf(&b, "  p%d: {gates: *gs}\n", i)
	}
	rf := fakeFS(map[string]string{"/ws/agentloop.yaml": b.String()})
	_, err := Load(Options{WorkDir: "/ws", UserConfigDir: "/g", Getenv: env(), ReadFile: rf})
	if err == nil || !strings.Contains(err.Error(), "simplify it") {
		t.Fatalf("err = %v", err)
	}
}
