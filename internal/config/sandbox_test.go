package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// sandbox: in a procedure (true, or a mapping whose agents: defaults to true),
// in an agent (true, or what it adds), and --sandbox, which turns the agents'
// on over whatever the files say.
func TestSandboxConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		workspace string
		flag      *bool
		want      Sandbox
		agent     *policy.Config
	}{
		{name: "off by default", workspace: "procedures:\n  p: {agent: claude}\n"},
		{name: "true", workspace: "procedures:\n  p: {agent: claude, sandbox: true}\n", want: Sandbox{Agents: true}},
		{name: "a mapping", workspace: "procedures:\n  p: {agent: claude, sandbox: {gates: true, network: off, allow: [\"a.b:1\"], write: [\"~/.cache/go-build\"]}}\n",
			want: Sandbox{Agents: true, Gates: true, Config: policy.Config{Network: "off", Allow: []string{"a.b:1"}, Write: []string{"~/.cache/go-build"}}}},
		{name: "sandbox-runtime's settings", workspace: "procedures:\n  p: {agent: claude, sandbox: {settings: ~/.srt-settings.json}}\n",
			want: Sandbox{Agents: true, Config: policy.Config{Settings: "~/.srt-settings.json"}}},
		{name: "gates only", workspace: "procedures:\n  p: {agent: claude, sandbox: {agents: false, gates: true}}\n", want: Sandbox{Gates: true}},
		{name: "the flag", workspace: "procedures:\n  p: {agent: claude, sandbox: {network: on}}\n", flag: ptr(true),
			want: Sandbox{Agents: true, Config: policy.Config{Network: "on"}}},
		{name: "an agent's own", workspace: "agents:\n  mine: {preset: codex, sandbox: {allow: [\"127.0.0.1:9\"]}}\nprocedures:\n  p: {agent: mine}\n",
			agent: &policy.Config{Allow: []string{"127.0.0.1:9"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := load(t, "", tt.workspace, nil, Overrides{Sandbox: tt.flag})
			if err != nil {
				t.Fatal(err)
			}
			p, err := cfg.Procedure("p")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, p.Sandbox); diff != "" {
				t.Errorf("procedure sandbox (-want +got):\n%s", diff)
			}
			if a, ok := cfg.Agent("mine"); ok || tt.agent != nil {
				if diff := cmp.Diff(tt.agent, a.Sandbox); diff != "" {
					t.Errorf("agent sandbox (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestSandboxConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ workspace, want string }{
		{"procedures:\n  p: {agent: claude, sandbox: {network: partly}}\n", `sandbox.network: expected one of off, on, hosts, got "partly"`},
		{"procedures:\n  p: {agent: claude, sandbox: {allow: [\"https://x\"]}}\n", "not a URL"},
		{"procedures:\n  p: {agent: claude, sandbox: {write: [rel/path]}}\n", `"rel/path": want an absolute path or one under ~/`},
		{"procedures:\n  p: {agent: claude, sandbox: {netwrk: off}}\n", `unknown key "netwrk"`},
		{"procedures:\n  p: {agent: claude, sandbox: {settings: srt.json}}\n", `sandbox.settings: "srt.json": want an absolute path or one under ~/`},
		{"agents:\n  a: {preset: claude, sandbox: false}\nprocedures:\n  p: {agent: a}\n", "an agent's sandbox is true or a mapping"},
		{"agents:\n  a: {preset: claude, sandbox: {gates: true}}\nprocedures:\n  p: {agent: a}\n", `unknown key "gates"`},
	}
	for _, tt := range tests {
		_, err := load(t, "", tt.workspace, nil, Overrides{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.workspace, err, tt.want)
		}
	}
}
