package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/suggest"
)

// Presets returns the built-in presets, sorted by name. Each call returns fresh
// copies, so callers may change them.
func Presets() []Preset {
	ps := []Preset{
		{
			Name: "claude", Binary: "claude",
			Args:      []string{"-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"},
			PromptVia: PromptStdin, Format: FormatClaudeStream,
			Docs:    "Claude Code; prompt on stdin (large -p arguments stall); stream-json needs --verbose",
			Install: "npm install -g @anthropic-ai/claude-code",
			Tested:  "2.1.197",
			Requires: []Requirement{{AsRoot: true, WithArg: "--dangerously-skip-permissions", AnyEnv: []string{"IS_SANDBOX"},
				Fix: "Claude Code refuses --dangerously-skip-permissions as root: run agentloop as another user, or, in a container or VM, set IS_SANDBOX=1 (in the environment or the agent's env)"}},
		},
		{
			Name: "codex", Binary: "codex",
			Args:      []string{"exec", "--json", "--skip-git-repo-check", "--sandbox", "workspace-write", "-"},
			PromptVia: PromptStdin, Format: FormatCodex,
			Docs:    "OpenAI Codex; '-' reads the prompt from stdin; exec never asks for approval; no cost reported (estimated)",
			Install: "npm install -g @openai/codex",
			Tested:  "0.169.0",
		},
		{
			Name: "gemini", Binary: "gemini",
			Args:      []string{"--output-format", "stream-json", "--yolo"},
			PromptVia: PromptStdin, Format: FormatGeminiStream,
			Docs:    "Gemini CLI; with no -p a non-TTY stdin is the prompt; JSON errors go to stderr; no cost reported (estimated)",
			Install: "npm install -g @google/gemini-cli",
			Tested:  "0.61.0",
		},
		{
			Name: "kiro", Binary: "kiro-cli",
			Args:      []string{"chat", "--no-interactive", "--trust-all-tools"},
			PromptVia: PromptStdin, Format: FormatText,
			Docs: "Kiro CLI; text output only, no usage or cost (credits); headless auth via KIRO_API_KEY",
		},
		{
			Name: "amp", Binary: "amp",
			Args:      []string{"-x", "--stream-json"},
			PromptVia: PromptStdin, Format: FormatAmpStream,
			Docs: "Amp; Claude-compatible stream JSON, tokens from assistant usage, no cost (credits); error shapes UNVERIFIED",
		},
		{
			Name: "opencode", Binary: "opencode",
			Args:      []string{"run", "--format", "json", "--auto"},
			PromptVia: PromptArg, Format: FormatOpencode,
			Docs:    "opencode; the message is a positional argument (piped stdin is appended); cost summed over step_finish",
			Install: "npm install -g opencode-ai",
			Tested:  "1.18.33",
		},
		{
			Name: "qwen", Binary: "qwen",
			Args:      []string{"--output-format", "stream-json", "--yolo"},
			PromptVia: PromptStdin, Format: FormatQwenStream,
			Docs:    "Qwen Code; a non-TTY stdin is the prompt; Claude-like stream-json whose input_tokens include the cached ones; no cost reported (estimated)",
			Install: "npm install -g @qwen-code/qwen-code",
			Tested:  "0.24.4",
		},
		{
			Name: "cursor", Binary: "cursor-agent",
			Args:      []string{"-p", "--output-format", "stream-json", "--trust", "--force"},
			PromptVia: PromptStdin, Format: FormatCursorStream,
			Docs: "Cursor agent (binary also 'agent'); failures print text on stderr; no cost reported (estimated)",
		},
		{
			Name: "aider", Binary: "aider",
			Args: []string{"--yes-always", "--no-pretty", "--no-stream", "--no-analytics",
				"--analytics-log", PlaceholderUsageLog},
			PromptVia: PromptFile, PromptFlag: "--message-file", Format: FormatAider,
			Docs: "Aider; exits 0 even when the model call failed; usage from the analytics log and 'Tokens:' lines",
		},
		{
			Name: "goose", Binary: "goose",
			Args:      []string{"run", "--no-session", "--output-format", "stream-json"},
			PromptVia: PromptFile, PromptFlag: "-i", Format: FormatGoose,
			Env:  map[string]string{"GOOSE_MODE": "auto"},
			Docs: "Goose; stream-json schema UNVERIFIED (only a total token count); GOOSE_MODE=auto approves tools",
		},
		{
			Name: "copilot", Binary: "copilot",
			Args:      []string{"--output-format", "json", "--allow-all-tools", "--no-ask-user"},
			PromptVia: PromptArg, PromptFlag: "-p", Format: FormatCopilot,
			Docs: "GitHub Copilot CLI; JSONL; billing in premium requests, no input tokens or cost; judge by result.exitCode",
		},
		{
			Name: "custom", Binary: "",
			PromptVia: PromptStdin, Format: FormatText,
			Docs: "any command: set cmd and prompt_via; output is kept as text, usage unknown",
		},
	}
	for i := range ps {
		ps[i].Failures = failuresFor(ps[i].Name)
	}
	slices.SortFunc(ps, func(a, b Preset) int { return strings.Compare(a.Name, b.Name) })
	return ps
}

// Names returns the names of the built-in presets, sorted.
func Names() []string {
	ps := Presets()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}

// Lookup returns the built-in preset called name.
func Lookup(name string) (Preset, error) {
	for _, p := range Presets() {
		if p.Name == name {
			return p, nil
		}
	}
	hint := ""
	if near := suggest.Closest(name, Names()); near != "" {
		hint = fmt.Sprintf("did you mean %q? ", near)
	}
	return Preset{}, fmt.Errorf("unknown agent %q: %suse one of %s, or give a command with agent: {cmd: [...]}",
		name, hint, strings.Join(Names(), ", "))
}
