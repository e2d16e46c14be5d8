package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/prompt"
)

func TestFullProcedure(t *testing.T) {
	t.Parallel()
	ws := `default: web
log_format: json
state_dir: .state
agents:
  claude: {extra_args: [--model, opus]}
  mine: {cmd: [my-agent, --yes], prompt_via: arg, env: {A: "1"}}
prices:
  opus: {input: 15, output: 75, cache_read: 1.5, cache_write: 18.75}
procedures:
  web:
    description: the web app
    prompt:
      preamble: |
        Be brief.
        Really.
      observe: {text: "look"}
      orient: {file: o.md}
      decide: builtin:build/decide.md
      act: prompts/act.md
      context: [AGENTS.md, "fix the bug"]
    agent: mine
    fallback: [claude]
    gates:
      - go test ./...
      - {name: lint, run: [golangci-lint, run], dir: web, timeout: 5m, required: false, format: golangci-json, env: {X: y}, tolerate_baseline: true, max_feedback: 200}
      - {run: go test -race ./..., rerun: whole}
      - ./check.sh
    reviewer: {agent: codex, prompt: review.md, max_rounds: 2}
    limits: {max_iterations: 5, failure_threshold: 2, iteration_timeout: 30m, idle_timeout: 5m, timeout: 4h, max_tokens: 2_000_000, max_cost_usd: 20.5, max_duration: 1h30m, token_budget: 100000}
    feedback: {max_length: 800}
    baseline: false
    escalation: {on: [security], protected_paths: ["auth/**"], include_diff: false, max_diff_lines: 50}
    policy: {plateau: {window: 3}}
    git: {checkpoint: false, commit: true, push: true, remote: origin, branch: loop}
    completion_marker: DONE
`
	c, err := load(t, "", ws, nil, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Procedure("")
	if err != nil {
		t.Fatal(err)
	}
	want := Procedure{
		Name: "web", Description: "the web app",
		Prompt: prompt.Parts{
			Preamble: prompt.Part{Text: "Be brief.\nReally.\n"}, Observe: prompt.Part{Text: "look"},
			Orient: prompt.Part{File: "o.md"}, Decide: prompt.Part{File: "builtin:build/decide.md"},
			Act: prompt.Part{File: "prompts/act.md"}, Context: []string{"AGENTS.md", "fix the bug"},
		},
		Agent: AgentRef{Name: "mine"}, Fallback: []string{"claude"},
		Gates: []Gate{
			{Name: "go-test", Run: Command{Shell: "go test ./..."}, Required: true, Format: "auto"},
			{Name: "lint", Run: Command{Argv: []string{"golangci-lint", "run"}}, Dir: "web", Timeout: 5 * time.Minute,
				Format: "golangci-json", Env: map[string]string{"X": "y"}, TolerateBaseline: true, MaxFeedback: 200},
			{Name: "go-test-2", Run: Command{Shell: "go test -race ./..."}, Required: true, Format: "auto", Rerun: "whole"},
			{Name: "check", Run: Command{Shell: "./check.sh"}, Required: true, Format: "auto"},
		},
		Reviewer: &Reviewer{Agent: AgentRef{Name: "codex"}, Prompt: prompt.Part{File: "review.md"}, MaxRounds: 2},
		Limits: Limits{Limits: budget.Limits{MaxIterations: 5, FailureThreshold: 2, IterationTimeout: 30 * time.Minute,
			MaxTokens: 2_000_000, MaxCostUSD: 20.5, MaxDuration: 90 * time.Minute}, IdleTimeout: 5 * time.Minute,
			GateTimeout: DefaultGateTimeout, Timeout: 4 * time.Hour, TokenBudget: 100000},
		Feedback:         Feedback{MaxLength: 800},
		Escalation:       Escalation{On: []string{"security"}, ProtectedPaths: []string{"auth/**"}, MaxDiffLines: 50},
		Policy:           map[string]any{"plateau": map[string]any{"window": 3}},
		Git:              Git{Commit: true, Push: true, Remote: "origin", Branch: "loop"},
		CompletionMarker: "DONE",
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("web (-want +got):\n%s", diff)
	}
	if c.LogFormat != "json" || c.StateDir != ".state" {
		t.Errorf("log_format=%q state_dir=%q", c.LogFormat, c.StateDir)
	}
	wantAgents := map[string]AgentSpec{
		"claude": {ExtraArgs: []string{"--model", "opus"}},
		"mine":   {Cmd: Command{Argv: []string{"my-agent", "--yes"}}, PromptVia: "arg", Env: map[string]string{"A": "1"}},
	}
	if diff := cmp.Diff(wantAgents, c.Agents); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]Price{"opus": {15, 75, 1.5, 18.75}}, c.Prices); diff != "" {
		t.Errorf("prices (-want +got):\n%s", diff)
	}
}
