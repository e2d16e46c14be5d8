package e2e

import (
	"fmt"
	"os"
	"path/filepath"
)

// cli is one real agent CLI: its preset, its npm package at the tested version,
// and the recipe that points it at a model server unattended (the same recipes
// as internal/agent/RECIPES.md).
type cli struct {
	name    string // the agentloop preset
	bin     string // the executable in node_modules/.bin
	pkg     string // the npm package@version .ci/run installs
	version string // what `bin --version` prints
	// countsSide: the usage the CLI reports includes its side requests
	// (gemini's model routing); the others report only the conversation.
	countsSide bool
	// noTokens: the CLI reports no token counts (copilot bills premium
	// requests), so the run's tokens must read as unknown.
	noTokens bool
	// setup writes the CLI's configuration for the server at url into home
	// and returns the environment the CLI needs.
	setup func(home, url string) (map[string]string, error)
}

var clis = []cli{
	{
		name: "claude", bin: "claude", pkg: "@anthropic-ai/claude-code@2.1.197", version: "2.1.197",
		setup: func(home, url string) (map[string]string, error) {
			return map[string]string{
				"HOME":               home,
				"ANTHROPIC_BASE_URL": url,
				"ANTHROPIC_API_KEY":  "sk-ant-double",
				// Claude Code refuses --dangerously-skip-permissions as root
				// outside a sandbox; a CI container is one.
				"IS_SANDBOX": "1",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
				// It retries every API error, 401 included, 10 times by default.
				"CLAUDE_CODE_MAX_RETRIES": "2",
			}, nil
		},
	},
	{
		name: "codex", bin: "codex", pkg: "@openai/codex@0.169.0", version: "0.169.0",
		setup: func(home, url string) (map[string]string, error) {
			codexHome := filepath.Join(home, ".codex")
			cfg := fmt.Sprintf(`model = "double-1"
model_provider = "double"

[model_providers.double]
name = "model double"
base_url = %q
env_key = "DOUBLE_API_KEY"
wire_api = "responses"
request_max_retries = 2
stream_max_retries = 1
`, url+"/v1")
			// Codex makes its helper commands (codex-linux-sandbox, which the
			// system's bubblewrap runs) in CODEX_HOME, but not under the
			// temporary folder, where t.TempDir puts the home: its temporary
			// folder is one of its own.
			tmp := filepath.Join(codexHome, "tmp")
			if err := os.MkdirAll(tmp, 0o700); err != nil {
				return nil, err
			}
			return map[string]string{"HOME": home, "CODEX_HOME": codexHome, "TMPDIR": tmp, "DOUBLE_API_KEY": "sk-double"},
				writeFile(filepath.Join(codexHome, "config.toml"), cfg)
		},
	},
	{
		name: "gemini", bin: "gemini", pkg: "@google/gemini-cli@0.61.0", version: "0.61.0", countsSide: true,
		setup: func(home, url string) (map[string]string, error) {
			settings := `{"security": {"auth": {"selectedType": "gemini-api-key"}},
 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
 "general": {"disableAutoUpdate": true, "disableUpdateNag": true}}`
			return map[string]string{
				"HOME":                       home,
				"GOOGLE_GEMINI_BASE_URL":     url,
				"GEMINI_API_KEY":             "double-key",
				"GEMINI_CLI_TRUST_WORKSPACE": "true",
			}, writeFile(filepath.Join(home, ".gemini", "settings.json"), settings)
		},
	},
	{
		name: "opencode", bin: "opencode", pkg: "opencode-ai@1.18.33", version: "1.18.33",
		setup: func(home, url string) (map[string]string, error) {
			cfg := fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "double": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "model double",
      "options": {"baseURL": %q, "apiKey": "sk-double"},
      "models": {"double-1": {"name": "double-1"}}
    }
  },
  "model": "double/double-1"
}`, url+"/v1")
			return map[string]string{"HOME": home, "OPENCODE_DISABLE_MODELS_FETCH": "1"},
				writeFile(filepath.Join(home, ".config", "opencode", "opencode.json"), cfg)
		},
	},
	{
		name: "qwen", bin: "qwen", pkg: "@qwen-code/qwen-code@0.24.4", version: "0.24.4",
		setup: func(home, url string) (map[string]string, error) {
			settings := `{"security": {"auth": {"selectedType": "openai"}},
 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}}`
			return map[string]string{
				"HOME":            home,
				"OPENAI_BASE_URL": url + "/v1",
				"OPENAI_API_KEY":  "sk-double",
				"OPENAI_MODEL":    "double-1",
			}, writeFile(filepath.Join(home, ".qwen", "settings.json"), settings)
		},
	},
	{
		name: "copilot", bin: "copilot", pkg: "@github/copilot@1.0.102", version: "1.0.102", noTokens: true,
		setup: func(home, url string) (map[string]string, error) {
			// Bring your own key: no GitHub login, Chat Completions.
			return map[string]string{
				"HOME":                      home,
				"COPILOT_PROVIDER_BASE_URL": url + "/v1",
				"COPILOT_PROVIDER_API_KEY":  "sk-double",
				"COPILOT_MODEL":             "double-1",
			}, nil
		},
	},
}

func lookupCLI(name string) cli {
	for _, c := range clis {
		if c.name == name {
			return c
		}
	}
	panic("no CLI " + name)
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}
