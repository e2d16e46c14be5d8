package agent

import (
	"strings"
	"testing"
)

func TestAccount(t *testing.T) {
	t.Parallel()
	claude, _ := Lookup("claude")
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	const key = "sk-ant-api03-abcdefghijklmnop"
	a := Account(claude, env("ANTHROPIC_API_KEY", key))
	b := Account(claude, env("ANTHROPIC_API_KEY", key+"x"))
	if !strings.HasPrefix(a, "claude:") || len(a) != len("claude:")+12 || strings.Contains(a, "sk-ant") {
		t.Errorf("account %q", a)
	}
	if a == b {
		t.Error("two keys give one account")
	}
	if c := Account(claude, env("ANTHROPIC_API_KEY", key, "ANTHROPIC_BASE_URL", "http://127.0.0.1:1")); c == a {
		t.Error("another model host gives the same account")
	}
	if l := Account(claude, env()); l != "claude:login" {
		t.Errorf("no key: %q", l)
	}
	if p := Provider(Preset{Name: "my-claude", Binary: "/usr/local/bin/claude"}); p != "claude" {
		t.Errorf("provider of a configured claude %q", p)
	}
	if p := Provider(Preset{Name: "fakeclaude", Binary: "fakeagent", Format: FormatClaudeStream}); p != "claude" {
		t.Errorf("provider of a command speaking claude's stream %q", p)
	}
	custom := Preset{Name: "my-agent", Binary: "x", Format: FormatText}
	if p := Provider(custom); p != "command" {
		t.Errorf("provider of a command %q", p)
	}
}
