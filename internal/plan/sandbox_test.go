package plan

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/sandbox"
	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// Which agents and gates run in the sandbox, with what: --sandbox puts the
// agent, its fallbacks and the reviewer in it, with the needs of each one's
// preset; an agent's own sandbox: adds to the procedure's; gates only with
// sandbox: {gates: true}.
func TestSandboxes(t *testing.T) {
	t.Parallel()
	wd := t.TempDir()
	yaml := `agents:
  codex2: {preset: codex, sandbox: {allow: ["127.0.0.1:9"]}}
procedures:
  plain: {agent: claude, fallback: [codex]}
  flagged: {agent: claude, fallback: [codex2], reviewer: {agent: codex}, gates: ["go test ./..."], sandbox: {network: off}}
  own: {agent: codex2}
  gates: {agent: claude, gates: ["go test ./..."], sandbox: {agents: false, gates: true, allow: ["proxy.golang.org"]}}
`
	if err := os.WriteFile(filepath.Join(wd, config.WorkspaceFile), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	resolve := func(name string, flag bool) *Plan {
		t.Helper()
		ov := config.Overrides{}
		if flag {
			ov.Sandbox = &flag
		}
		p, err := Resolve(load(t, wd, ov), name, Options{WorkDir: wd, Getenv: func(k string) string {
			if k == "HOME" {
				return "/home/someone"
			}
			return ""
		}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	p := resolve("plain", false)
	if p.Sandboxed() || p.AgentSandbox(p.Agent) != nil || len(p.AgentRunner(nil).Sandboxes) != 0 {
		t.Error("a procedure without sandbox: runs something in a sandbox")
	}
	if sb := p.SandboxFor(p.Agent); sb.Needs.Hosts[0] != "api.anthropic.com" || sb.Home != "/home/someone" || sb.State != filepath.Join(wd, ".agentloop") {
		t.Errorf("what --sandbox would run claude in: %+v", sb)
	}

	p = resolve("flagged", true)
	runner := p.AgentRunner(nil)
	claude, codex := runner.Sandboxes["claude"], runner.Sandboxes["codex2"]
	if claude == nil || codex == nil || !p.Sandboxed() {
		t.Fatalf("sandboxes %v: want the agent's and its fallback's", runner.Sandboxes)
	}
	if sb := codex.(*sandbox.Sandbox); sb.Config.Network != policy.NetworkOff || len(sb.Config.Allow) != 1 || sb.Needs.HomeEnv[0] != "CODEX_HOME" {
		t.Errorf("the fallback's sandbox: %+v", sb)
	}
	if r := p.ReviewerAgent(nil).(*ReviewerAgent); r.Sandbox == nil {
		t.Error("the reviewer runs outside the sandbox")
	}
	if g := p.GateRunner().(*ProcGates); g.Sandbox != nil {
		t.Error("the gates run in the sandbox without gates: true")
	}

	p = resolve("own", false)
	if !p.Sandboxed() || p.AgentSandbox(p.Agent) == nil {
		t.Error("an agent with a sandbox: of its own runs outside it")
	}

	p = resolve("gates", false)
	if p.AgentSandbox(p.Agent) != nil {
		t.Error("agents: false, yet the agent runs in the sandbox")
	}
	if g := p.GateRunner().(*ProcGates); g.Sandbox == nil || g.Sandbox.(*sandbox.Sandbox).Config.Allow[0] != "proxy.golang.org" {
		t.Errorf("gates: true: %+v", g.Sandbox)
	}
	// The gates a graph runs on a task's merged result run in it too.
	if g := p.MergeGateRunner().(*ProcGates); g.Sandbox == nil || g.Redact != p.Secrets() {
		t.Errorf("the merge's gates: sandbox %+v, redactor %p: want the plan's", g.Sandbox, g.Redact)
	}
}

// Where no sandbox can be made, a plan that asks for one does not start.
func TestSandboxPreflight(t *testing.T) {
	t.Parallel()
	wd := t.TempDir()
	on := true
	p, err := Resolve(load(t, wd, config.Overrides{Sandbox: &on}), "", Options{WorkDir: wd})
	if err != nil {
		t.Fatal(err)
	}
	host := agent.Host{LookPath: func(string) (string, error) { return "/bin/true", nil }, Getenv: func(string) string { return "x" }}
	missing := errors.New("bubblewrap is not installed")
	host.Sandbox = func() error { return errors.Join(sandbox.ErrUnavailable, missing) }
	if err := p.Preflight(host); !errors.Is(err, sandbox.ErrUnavailable) || !strings.Contains(err.Error(), "--sandbox: ") {
		t.Errorf("Preflight = %v, want the sandbox's unavailability", err)
	}
	checked := false
	host.Sandbox = func() error { checked = true; return nil }
	off := false
	p, err = Resolve(load(t, wd, config.Overrides{Sandbox: &off}), "", Options{WorkDir: wd})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Preflight(host); err != nil || checked {
		t.Errorf("without a sandbox: Preflight = %v, sandbox checked %v", err, checked)
	}
}

// Preflight sets up, once, the sandbox of each agent and gate that runs in
// one, and only theirs: an agent that runs as it is has none to try.
func TestSandboxPreflightTries(t *testing.T) {
	t.Parallel()
	wd := t.TempDir()
	yaml := `agents:
  codex2: {preset: codex, sandbox: {allow: ["127.0.0.1:9"]}}
procedures:
  gates: {agent: claude, reviewer: {agent: codex2}, gates: ["go test ./..."], sandbox: {agents: false, gates: true}}
`
	if err := os.WriteFile(filepath.Join(wd, config.WorkspaceFile), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Resolve(load(t, wd, config.Overrides{}), "gates", Options{WorkDir: wd})
	if err != nil {
		t.Fatal(err)
	}
	host := agent.Host{LookPath: func(string) (string, error) { return "/bin/true", nil }, Getenv: func(string) string { return "x" },
		Sandbox: func() error { return nil }}
	var tried []string
	host.TrySandbox = func(sb agent.SandboxTrier, dir string, a agent.Preset) error {
		if s, ok := sb.(*sandbox.Sandbox); !ok || s == nil {
			t.Errorf("TrySandbox for %s got %#v, want a sandbox", a.Name, sb)
			return nil
		}
		tried = append(tried, a.Name)
		if a.Name == p.Gates[0].Name {
			return errors.New("bwrap: cannot bind")
		}
		return nil
	}
	err = p.Preflight(host)
	if want := []string{"codex2", p.Gates[0].Name}; !slices.Equal(tried, want) {
		t.Errorf("Preflight tried the sandboxes of %q, want %q", tried, want)
	}
	if want := "--sandbox: gate " + p.Gates[0].Name + ": bwrap: cannot bind"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Preflight = %v, want %q", err, want)
	}
}
