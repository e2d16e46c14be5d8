package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// accountEnv are, per preset, the variables that hold the credential its CLI
// uses (an API key, a login token) and where its model API is: together they
// tell one account from another. A preset with none of them set runs on the
// CLI's own login (a subscription).
var accountEnv = map[string][]string{
	"claude":   {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_BASE_URL", "CLAUDE_CONFIG_DIR"},
	"codex":    {"OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME"},
	"gemini":   {"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_GEMINI_BASE_URL"},
	"qwen":     {"DASHSCOPE_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"},
	"opencode": {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENCODE_CONFIG"},
	"amp":      {"AMP_API_KEY", "AMP_URL"},
	"cursor":   {"CURSOR_API_KEY"},
	"copilot":  {"GH_TOKEN", "GITHUB_TOKEN", "COPILOT_GITHUB_TOKEN"},
	"kiro":     {"KIRO_API_KEY"},
	"aider":    {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_API_BASE"},
	"goose":    {"GOOSE_PROVIDER", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_HOST"},
}

// Provider is who a preset's spend is charged to in the shared ledger: the
// built-in preset it is or builds on (claude, codex, …, told by its name,
// else by the program it runs, else by its output format), "command" for
// any other command.
func Provider(p Preset) string {
	if _, ok := accountEnv[p.Name]; ok {
		return p.Name
	}
	for _, b := range Presets() {
		if b.Binary != "" && b.Binary == filepath.Base(p.Binary) {
			return b.Name
		}
	}
	if p.Format != FormatText { // every other output format is one CLI's
		for _, b := range Presets() {
			if b.Format == p.Format {
				return b.Name
			}
		}
	}
	return "command"
}

// Account is the identity of the account preset p runs on, derived from its
// credentials and model host in env (the preset's own Env first, then
// getenv): "claude:3f9a0c1e7b2d", never the credential itself (the first 12
// hex digits of a SHA-256 over them). With none set it is the CLI's own
// login: "claude:login".
func Account(p Preset, getenv func(string) string) string {
	prov := Provider(p)
	h := sha256.New()
	any := false
	for _, name := range accountEnv[prov] {
		v := p.Env[name]
		if v == "" && getenv != nil {
			v = getenv(name)
		}
		if v == "" {
			continue
		}
		any = true
		h.Write([]byte(name + "=" + strings.TrimSpace(v) + "\x00"))
	}
	if !any {
		return prov + ":login"
	}
	return prov + ":" + hex.EncodeToString(h.Sum(nil))[:12]
}
