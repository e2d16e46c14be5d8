package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/sandbox/policy"
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
			Requires: []Requirement{{AsRoot: true, WithArg: "--dangerously-skip-permissions", AnyEnv: []string{"IS_SANDBOX"}, Value: "1",
				Fix: "Claude Code refuses --dangerously-skip-permissions as root: run agentloop as another user, or, in a container or VM, set IS_SANDBOX=1 (in the environment or the agent's env)"}},
			Sandbox: policy.Needs{Home: []string{".claude/", ".claude.json", ".claude.json.backup"}, HomeEnv: []string{"CLAUDE_CONFIG_DIR"},
				Hosts: []string{"api.anthropic.com", "console.anthropic.com", "claude.ai", "statsig.anthropic.com"}, HostEnv: []string{"ANTHROPIC_BASE_URL"}},
		},
		{
			Name: "codex", Binary: "codex",
			Args:      []string{"exec", "--json", "--skip-git-repo-check", "--sandbox", "workspace-write", "-"},
			PromptVia: PromptStdin, Format: FormatCodex,
			Docs:    "OpenAI Codex; '-' reads the prompt from stdin; exec never asks for approval; no cost reported (estimated)",
			Install: "npm install -g @openai/codex",
			Tested:  "0.169.0",
			Sandbox: policy.Needs{Home: []string{".codex/"}, HomeEnv: []string{"CODEX_HOME"},
				Hosts: []string{"api.openai.com", "chatgpt.com", "auth.openai.com"}, HostEnv: []string{"OPENAI_BASE_URL"}},
		},
		{
			Name: "gemini", Binary: "gemini",
			Args: []string{"--output-format", "stream-json", "--yolo"},
			// The prompt is an argument: the CLI gives up on stdin when no
			// byte is readable 500 ms after it starts reading, which a busy
			// machine can take ("No input provided via stdin", exit 42).
			PromptVia: PromptArg, PromptFlag: "--prompt", LongPromptOnStdin: true, Format: FormatGeminiStream,
			Docs:    "Gemini CLI; the prompt with --prompt (stdin only past 128 KiB: with no --prompt a non-TTY stdin is the prompt, if it is readable within 500 ms); JSON errors go to stderr; no cost reported (estimated)",
			Install: "npm install -g @google/gemini-cli",
			Tested:  "0.61.0",
			Sandbox: policy.Needs{Home: []string{".gemini/"},
				Hosts:   []string{"generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com", "oauth2.googleapis.com", "www.googleapis.com"},
				HostEnv: []string{"GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL"}},
		},
		{
			Name: "kiro", Binary: "kiro-cli",
			Args:      []string{"chat", "--no-interactive", "--trust-all-tools"},
			PromptVia: PromptStdin, Format: FormatText,
			Docs:    "Kiro CLI; text output only, no usage or cost (credits); headless auth via KIRO_API_KEY",
			Sandbox: policy.Needs{Home: []string{".kiro/", ".local/share/kiro-cli/"}, Hosts: []string{"*.kiro.dev", "*.amazonaws.com"}},
		},
		{
			Name: "amp", Binary: "amp",
			Args:      []string{"-x", "--stream-json"},
			PromptVia: PromptStdin, Format: FormatAmpStream,
			Docs:    "Amp; Claude-compatible stream JSON, tokens from assistant usage, no cost (credits); error shapes UNVERIFIED",
			Sandbox: policy.Needs{Home: []string{".config/amp/", ".local/share/amp/", ".cache/amp/"}, Hosts: []string{"ampcode.com", "*.ampcode.com"}, HostEnv: []string{"AMP_URL"}},
		},
		{
			Name: "opencode", Binary: "opencode",
			Args:      []string{"run", "--format", "json", "--auto"},
			PromptVia: PromptArg, Format: FormatOpencode,
			Docs:    "opencode; the message is a positional argument (piped stdin is appended); cost summed over step_finish",
			Install: "npm install -g opencode-ai",
			Tested:  "1.18.33",
			Sandbox: policy.Needs{Home: []string{".config/opencode/", ".local/share/opencode/", ".local/state/opencode/", ".cache/opencode/"},
				Hosts: []string{"opencode.ai", "models.dev", "api.anthropic.com", "api.openai.com"}},
		},
		{
			Name: "qwen", Binary: "qwen",
			Args:      []string{"--output-format", "stream-json", "--yolo"},
			PromptVia: PromptStdin, Format: FormatQwenStream,
			Docs:    "Qwen Code; a non-TTY stdin is the prompt; Claude-like stream-json whose input_tokens include the cached ones; no cost reported (estimated)",
			Install: "npm install -g @qwen-code/qwen-code",
			Tested:  "0.24.4",
			Sandbox: policy.Needs{Home: []string{".qwen/"}, Hosts: []string{"dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com", "chat.qwen.ai"}, HostEnv: []string{"OPENAI_BASE_URL"}},
		},
		{
			Name: "cursor", Binary: "cursor-agent",
			Args:      []string{"-p", "--output-format", "stream-json", "--trust", "--force"},
			PromptVia: PromptStdin, Format: FormatCursorStream,
			Docs:    "Cursor agent (binary also 'agent'); failures print text on stderr; no cost reported (estimated)",
			Sandbox: policy.Needs{Home: []string{".cursor/", ".config/cursor/"}, Hosts: []string{"cursor.com", "*.cursor.com", "*.cursor.sh"}},
		},
		{
			Name: "aider", Binary: "aider",
			Args: []string{"--yes-always", "--no-pretty", "--no-stream", "--no-analytics",
				"--analytics-log", PlaceholderUsageLog},
			PromptVia: PromptFile, PromptFlag: "--message-file", Format: FormatAider,
			Docs: "Aider; exits 0 even when the model call failed; usage from the analytics log and 'Tokens:' lines",
			Sandbox: policy.Needs{Home: []string{".aider/"}, Hosts: []string{"api.openai.com", "api.anthropic.com", "openrouter.ai"},
				HostEnv: []string{"OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"}},
		},
		{
			Name: "goose", Binary: "goose",
			Args:      []string{"run", "--no-session", "--output-format", "stream-json"},
			PromptVia: PromptFile, PromptFlag: "-i", Format: FormatGoose,
			Env:  map[string]string{"GOOSE_MODE": "auto"},
			Docs: "Goose; stream-json schema UNVERIFIED (only a total token count); GOOSE_MODE=auto approves tools",
			Sandbox: policy.Needs{Home: []string{".config/goose/", ".local/share/goose/", ".local/state/goose/"}, Hosts: []string{"api.openai.com", "api.anthropic.com"},
				HostEnv: []string{"OPENAI_HOST", "ANTHROPIC_HOST"}},
		},
		{
			Name: "copilot", Binary: "copilot",
			Args:      []string{"--output-format", "json", "--allow-all-tools", "--no-ask-user"},
			PromptVia: PromptArg, PromptFlag: "-p", Format: FormatCopilot,
			Docs: "GitHub Copilot CLI; JSONL; billing in premium requests, no input tokens or cost; judge by result.exitCode",
			Sandbox: policy.Needs{Home: []string{".copilot/", ".config/github-copilot/"},
				Hosts: []string{"api.github.com", "github.com", "*.githubcopilot.com"}, HostEnv: []string{"COPILOT_PROVIDER_BASE_URL"}},
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
