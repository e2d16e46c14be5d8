package plan

import (
	"testing"

	"github.com/agentloop/agentloop/internal/agent"
)

func TestPresetAgentsByName(t *testing.T) {
	t.Parallel()
	a := &PresetAgents{
		Agent:    agent.Preset{Name: "claude", Binary: "claude"},
		Fallback: []agent.Preset{{Name: "codex", Binary: "codex"}, {Name: "gemini", Binary: "gemini"}},
	}
	for _, tt := range []struct {
		name, binary string
		ok           bool
	}{
		{"", "claude", true},
		{"claude", "claude", true},
		{"gemini", "gemini", true},
		{"codex", "codex", true},
		{"aider", "", false},
	} {
		p, ok := a.preset(tt.name)
		if ok != tt.ok || (ok && p.Binary != tt.binary) {
			t.Errorf("preset(%q) = %s, %v; want %s, %v", tt.name, p.Binary, ok, tt.binary, tt.ok)
		}
	}
}
