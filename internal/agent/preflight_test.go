package agent

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/evidence"
)

func TestPreflight(t *testing.T) {
	t.Parallel()
	found := func(string) (string, error) { return "/usr/bin/x", nil }
	missing := func(string) (string, error) { return "", exec.ErrNotFound }
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	claude := mustLookup(t, "claude")
	sandboxed := claude.Merge(Override{Env: map[string]string{"IS_SANDBOX": "1"}})
	noSkip := claude.Merge(Override{Args: []string{"-p"}})
	tests := []struct {
		name string
		h    Host
		p    Preset
		want evidence.AgentOutcome // "" = ready
		fix  string
	}{
		{"ready", Host{LookPath: found}, claude, "", ""},
		{"not installed", Host{LookPath: missing}, claude, evidence.OutcomeNotInstalled, "npm install -g @anthropic-ai/claude-code"},
		{"root without IS_SANDBOX", Host{LookPath: found, Root: true, Getenv: env(nil)}, claude, evidence.OutcomeRefused, "IS_SANDBOX=1"},
		{"root with IS_SANDBOX in the environment", Host{LookPath: found, Root: true, Getenv: env(map[string]string{"IS_SANDBOX": "1"})}, claude, "", ""},
		{"root with IS_SANDBOX in the agent's env", Host{LookPath: found, Root: true, Getenv: env(map[string]string{"IS_SANDBOX": "yes"})}, sandboxed, "", ""},
		{"root with IS_SANDBOX=yes", Host{LookPath: found, Root: true, Getenv: env(map[string]string{"IS_SANDBOX": "yes"})}, claude, evidence.OutcomeRefused, `IS_SANDBOX="yes" does not do: it accepts only 1`},
		{"root without the flag that needs it", Host{LookPath: found, Root: true, Getenv: env(nil)}, noSkip, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Preflight(tt.h, "agent", tt.p)
			se, ok := errors.AsType[*SetupError](err)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Preflight() = %v, want ready", err)
			case tt.want == "":
				return
			case !ok:
				t.Fatalf("Preflight() = %v, want a *SetupError", err)
			}
			if se.Outcome != tt.want || !strings.Contains(se.Message+" "+se.Fix, tt.fix) || se.Agent != "claude" {
				t.Errorf("Preflight() = %+v, want %s with a fix naming %q", se, tt.want, tt.fix)
			}
		})
	}
}

func TestVersionWarning(t *testing.T) {
	t.Parallel()
	p := Preset{Name: "claude", Binary: "claude", Tested: "2.1.197"}
	tests := []struct {
		installed string
		warn      bool
	}{
		{"2.1.197", false}, {"2.9.0", false}, {"3.0.1", true}, {"1.0.0", true}, {"", false},
	}
	for _, tt := range tests {
		if got := VersionWarning(p, tt.installed); (got != "") != tt.warn {
			t.Errorf("VersionWarning(%q) = %q, want a warning: %v", tt.installed, got, tt.warn)
		}
	}
	if got := VersionWarning(Preset{Name: "custom"}, "9.0.0"); got != "" {
		t.Errorf("a preset without a tested version warned: %q", got)
	}
}
